// MathJax 2's configuration for the formgrader's grading page, read by MathJax.js, which
// grader/jupyter/nbconvert/templates/formgrade/mathjax.html.j2 loads right after this file.
// It is nbconvert's (base/mathjax.html.j2) with the font settings below, given as the object
// window.MathJax (MathJax 2.3 and later read it) rather than in a text/x-mathjax-config block:
// MathJax runs such blocks with eval, which the formgrader's policy refuses (no 'unsafe-eval',
// grader/formgrader_csp.py). A file, not an inline script: served by that extension from 'self'.
//
// jupyter-server-mathjax ships one web font, STIX-Web, and not the TeX fonts that MathJax's
// HTML-CSS output prefers: left to its defaults MathJax asks for fonts/TeX/fontdata.js (a 404)
// before falling back. So the output is told to use STIX-Web and to look for no local or image
// font, as the classic notebook configured it. Its placeholder font MathJax_Blank, which MathJax
// means never to load, points at url('about:blank'), which the page's policy (font-src 'self'
// data:) refuses and reports; a local() name that no system has fails the same way, silently.
window.MathJax = {
    TeX: {equationNumbers: {autoNumber: "AMS", useLabelIds: true}},
    tex2jax: {
        inlineMath: [["$", "$"], ["\\(", "\\)"]],
        displayMath: [["$$", "$$"], ["\\[", "\\]"]],
        processEscapes: true,
        processEnvironments: true,
    },
    displayAlign: "center",
    messageStyle: "none",
    CommonHTML: {linebreaks: {automatic: true}},
    "HTML-CSS": {
        availableFonts: [],
        preferredFont: null,
        webFont: "STIX-Web",
        imageFont: null,
        styles: {"@font-face": {src: "local('MathJax_Blank')"}},
    },
};
