"""Accessibility checks of a page open in Chromium: axe-core's WCAG 2.0/2.1 A and AA rules, the
images' alt texts, and reflow at 320 CSS pixels (WCAG 1.4.10).

axe-core is the copy that the PyPI package ``axe-playwright-python`` ships (its
``axe.min.js``, pinned by requirements.lock): one Python dependency, no npm step. It is injected
into the open page through the DevTools protocol, which a page's Content-Security-Policy does not
govern, so the feedback and report pages are audited with their policy (no script) in force.
"""

from __future__ import annotations

from axe_playwright_python.base import AXE_SCRIPT
from playwright.sync_api import Page

# axe-core's tags for the success criteria of WCAG 2.0 and 2.1, levels A and AA.
WCAG_AA_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
# nbconvert's and MyST-NB's alt text for an output image without one: a placeholder, which
# WCAG 1.1.1 counts as no text alternative.
PLACEHOLDER_ALT = "No description has been provided for this image"
REFLOW_WIDTH = 320  # CSS pixels: WCAG 1.4.10, 1280 px at 400 % zoom
SNIPPET = 300  # characters of an offending element's HTML shown per failure


def axe_violations(page: Page) -> list[dict]:
    """axe-core's violations of :data:`WCAG_AA_TAGS` on ``page`` (its ``results.violations``:
    one entry per rule, with ``id``, ``help`` and the offending ``nodes``)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE_SCRIPT)
    options = {"runOnly": {"type": "tag", "values": list(WCAG_AA_TAGS)},
               "resultTypes": ["violations"]}
    return page.evaluate("options => axe.run(document, options).then(r => r.violations)",
                         options)


def describe(violations: list[dict]) -> str:
    """One line per offending element: rule id, its target and the start of its HTML."""
    return "\n".join(
        f"  {v['id']} ({v['help']}): {' '.join(map(str, node['target']))}: "
        f"{node['html'][:SNIPPET]}"
        for v in violations for node in v["nodes"])


def counts(violations: list[dict]) -> dict[str, int]:
    """Rule id -> number of offending elements."""
    return {v["id"]: len(v["nodes"]) for v in violations}


def bad_alt_texts(page: Page) -> list[str]:
    """The images of ``page`` whose alt text is missing, blank or a placeholder (their HTML).

    axe-core accepts ``alt=""`` (a decorative image) and any text at all; every image of our
    pages carries information, so each must say what it shows.
    """
    return page.evaluate(
        """placeholder => [...document.images].filter(img => {
               const alt = (img.getAttribute('alt') || '').trim();
               return !alt || alt === placeholder;
           }).map(img => img.outerHTML.slice(0, 200))""", PLACEHOLDER_ALT)


def reflow_overflow(page: Page) -> int:
    """By how many CSS pixels ``page``'s document is wider than its viewport (0 when it reflows:
    wide content wraps or scrolls inside its own box)."""
    return page.evaluate(
        "() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth)")

