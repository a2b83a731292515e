"""Accessibility checks of a page open in Chromium: axe-core's WCAG 2.0/2.1 A and AA rules, the
images' alt texts, and reflow at 320 CSS pixels (WCAG 1.4.10).

axe-core is the copy that the PyPI package ``axe-playwright-python`` ships (its
``axe.min.js``, pinned by requirements.lock): one Python dependency, no npm step. It is injected
into the open page through the DevTools protocol, which a page's Content-Security-Policy does not
govern, so the feedback and report pages are audited with their policy (no script) in force.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from axe_playwright_python.base import AXE_SCRIPT
from browser_support import CHROMIUM_ARGS, require_chromium  # tests/ is on sys.path
from playwright.sync_api import Page, sync_playwright

# axe-core's tags for the success criteria of WCAG 2.0 and 2.1, levels A and AA.
WCAG_AA_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
# nbconvert's and MyST-NB's alt text for an output image without one: a placeholder, which
# WCAG 1.1.1 counts as no text alternative.
PLACEHOLDER_ALT = "No description has been provided for this image"
REFLOW_WIDTH = 320  # CSS pixels: WCAG 1.4.10, 1280 px at 400 % zoom
SNIPPET = 300  # characters of an offending element's HTML shown per failure


def axe_violations(page: Page, within: str = "") -> list[dict]:
    """axe-core's violations of :data:`WCAG_AA_TAGS` on ``page``, or on the part of it that the
    CSS selector ``within`` names (its ``results.violations``: one entry per rule, with ``id``,
    ``help`` and the offending ``nodes``)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE_SCRIPT)
    options = {"runOnly": {"type": "tag", "values": list(WCAG_AA_TAGS)},
               "resultTypes": ["violations"]}
    return page.evaluate("([within, options]) => axe.run(within || document, options)"
                         ".then(r => r.violations)", [within, options])


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



def cut_blocks(page: Page) -> list[str]:
    """Blocks of code or output (``pre``) wider than their box where no box scrolls, i.e. whose
    end is cut off or runs over: their HTML. (That a box which scrolls is reached by keyboard
    is axe-core's rule ``scrollable-region-focusable``.)"""
    return page.evaluate(
        """() => [...document.querySelectorAll('pre')].filter(pre => {
               if (pre.scrollWidth <= pre.clientWidth + 1) return false;
               for (let box = pre; box; box = box.parentElement) {
                   if (['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) return false;
               }
               return true;
           }).map(pre => pre.outerHTML.slice(0, 200))""")


@contextlib.contextmanager
def chromium_page(profile: Path) -> Iterator[Page]:
    """A page of a headless Chromium (offline: the pages audited fetch nothing)."""
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=require_chromium(), headless=True, args=CHROMIUM_ARGS,
            offline=True)
        context.set_default_timeout(60_000)
        try:
            yield context.new_page()
        finally:
            context.close()


def problems(page: Page, url: str, ready: str = "",
             axe_widths: tuple[int, ...] = (1280, REFLOW_WIDTH)) -> list[str]:
    """Everything wrong with the page at ``url``, opened once at 1280 CSS pixels and then
    narrowed to 320: axe-core's violations (at each of ``axe_widths``), bad alt texts, a
    document wider than the screen, and code or output cut off. ``ready``: a script (a
    function) the page is awaited with after it loads, e.g. until MathJax has typeset it."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(url, wait_until="load")
    if ready:
        page.evaluate(ready)
    return loaded_page_problems(page, axe_widths)


def loaded_page_problems(page: Page, axe_widths: tuple[int, ...] = (1280, REFLOW_WIDTH),
                         ) -> list[str]:
    """:func:`problems` of a page already loaded (and typeset), for a test that opens each page
    once for several checks."""
    found = [f"image with a missing or placeholder alt text: {img}"
             for img in bad_alt_texts(page)]
    for width in (1280, REFLOW_WIDTH):
        page.set_viewport_size({"width": width, "height": 900})
        violations = axe_violations(page) if width in axe_widths else []
        if violations:
            found.append(f"at {width} px, axe-core {counts(violations)}:\n{describe(violations)}")
        overflow = reflow_overflow(page)
        if overflow:
            found.append(f"at {width} px the page is {overflow} px wider than the screen")
        found += [f"at {width} px, a block cut off at its box's edge: {pre}"
                  for pre in cut_blocks(page)]
    return found
