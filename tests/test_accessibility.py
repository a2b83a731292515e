"""Every page the project writes meets WCAG 2.1 AA (issue 26): the audit and the shared base.

The audit (tests/axe_support.py) runs axe-core's WCAG 2.0/2.1 A and AA rules in Chromium at a
desktop width and at 320 CSS pixels, and checks what axe-core lets pass: alt texts that are
placeholders, a page wider than the screen, code cut off at its box's edge. Here it is shown to
find each failure that the issue measured, on a page made to have them, and to pass the grader's
HTML base (grader/core/page.py) filled with content that strains it. The pages themselves are
audited where they are built, so nothing is built twice: the site in tests/test_site.py, one
feedback page per assignment in tests/test_grading.py, the report, the similarity report and the
feedback of a long hidden-test verdict in tests/test_grading_class.py.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_support import PLACEHOLDER_ALT, chromium_page, problems
from playwright.sync_api import Page

from grader.core.page import document, feedback_page, scroll_box
from grader.review.tables import table

# A 1x1 PNG: the pages' pictures are data: URLs too.
PIXEL = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")).decode()
LONG_TOKEN = "AssertionError:" + "x" * 300  # no break opportunity: it must wrap anyway
VERDICT = ("AssertionError: train_perceptron([[1, 0], [0, 1]], [1, -1]) returned the wrong "
           "weights. It calls your geometric_margin, which fails its own hidden test: fix that "
           "first.")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    with chromium_page(tmp_path_factory.mktemp("a11y-chromium")) as page:
        yield page


def write(tmp_path: Path, markup: str) -> str:
    path = tmp_path / "page.html"
    path.write_text(markup)
    return path.as_uri()


def test_the_audit_finds_each_failure_the_issue_measured(page: Page, tmp_path: Path) -> None:
    # as the pages were: no lang, faint text, links told apart by colour only, a placeholder
    # alt text, and a verdict on one line that does not wrap
    url = write(tmp_path, f"""<!DOCTYPE html><html><head><title>before</title></head><body>
<main><h1>Feedback</h1><p style="color:#aaa">a comment in faint grey</p>
<p>Read the <a href="#x" style="color:#0645ad;text-decoration:none">hint</a> in the text
around it, which goes on for a while.</p>
<img src="data:image/png;base64,{PIXEL}" alt="{PLACEHOLDER_ALT}">
<pre style="white-space:pre">{VERDICT}</pre></main></body></html>""")
    found = "\n".join(problems(page, url))
    for rule in ("html-has-lang", "color-contrast", "link-in-text-block"):
        assert rule in found, found
    assert "placeholder alt text" in found
    assert "at 320 px the page is" in found


def test_a_block_cut_off_in_its_own_box_is_found(page: Page, tmp_path: Path) -> None:
    # the verdict box of the issue: no page overflow, but the text ends at the box's edge
    url = write(tmp_path, document("cut", f'<main><pre style="white-space:pre;overflow:hidden">'
                                          f"{VERDICT}</pre></main>"))
    found = problems(page, url)
    assert found and all("cut off at its box's edge" in f for f in found), found


def test_the_grader_base_reflows_wide_tables_long_words_and_code(page: Page,
                                                                 tmp_path: Path) -> None:
    header = [f"01_perceptron/exercise_with_a_long_name_{i}" for i in range(12)]
    rows = [[f"student{r}", *("1.5" for _ in header[1:])] for r in range(5)]
    body = (f"<main><h1>{LONG_TOKEN}</h1><p>{LONG_TOKEN}</p><pre>{VERDICT * 3}</pre>"
            f"<code>{LONG_TOKEN}</code>{table(header, rows, caption='scores per student')}"
            f'<img alt="a bar chart of the scores: 3 scored 0, 2 scored 1" width="900" '
            f'src="data:image/png;base64,{PIXEL}"><p>See <a href="#x">the report</a> in the '
            f"middle of a sentence.</p></main>")
    assert problems(page, write(tmp_path, document("<strained> base", body))) == []


def test_a_scroll_box_is_reached_by_tab_and_named(page: Page, tmp_path: Path) -> None:
    wide = f'<table><tr><td style="white-space:nowrap">{"wide " * 200}</td></tr></table>'
    url = write(tmp_path, document("scroll", "<main><h1>t</h1>" + scroll_box(wide, "scores")
                                   + "</main>"))
    assert problems(page, url) == []
    page.keyboard.press("Tab")
    focused = page.evaluate("() => [document.activeElement.getAttribute('aria-label'), "
                            "document.activeElement.scrollWidth > "
                            "document.activeElement.clientWidth]")
    assert focused == ["scores", True]
    page.keyboard.press("ArrowRight")  # the keyboard scrolls it (smoothly: wait for it)
    page.wait_for_function("() => document.activeElement.scrollLeft > 0", timeout=5_000)


def test_feedback_gets_a_language_its_style_and_an_honest_alt_text() -> None:
    # the head of nbgrader's template and an image whose output named nothing
    markup = (f'<!DOCTYPE html>\n<html>\n<head><title>x</title></head><body><img src="a.png" '
              f'alt="{PLACEHOLDER_ALT}"><p>&lt;/head&gt; written by a student</p></body></html>')
    page_ = feedback_page(markup)
    assert page_.count("<html lang=\"en\">") == 1
    assert page_.index("<style>") < page_.index("</head>") < page_.index("<body>")
    assert PLACEHOLDER_ALT not in page_
    assert 'alt="an image your notebook displayed"' in page_
