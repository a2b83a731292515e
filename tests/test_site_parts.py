"""The course website's parts that need no build: the widget grids, the errata rule, the README's
lecture table. (tests/test_site.py builds the site and checks it in a browser.)"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import ipywidgets
import nbformat
import pytest
from coursesite import errata, frames, grid, pages, widget_html
from matplotlib.figure import Figure
from site_support import REPO


@pytest.fixture
def settings(tmp_path: Path):
    frames.SETTINGS = frames.Settings(tmp_path / "frames", "../_static/frames/",
                                      tmp_path / "manifest.jsonl", max_frames=12)
    frames.SETTINGS.folder.mkdir()
    yield frames.SETTINGS
    frames.SETTINGS = None


def draw(**values) -> Figure:
    """A frame that writes its arguments into its title (so every grid point differs)."""
    fig = Figure(figsize=(2, 1))
    ax = fig.subplots()
    ax.set_title(", ".join(f"{k}={v}" for k, v in sorted(values.items())))
    ax.set_xlabel("x")
    return fig


def data_of(widget) -> dict:
    page = widget_html.widget_html(widget)
    payload = re.search(r'class="course-widget-data">(.*?)</script>', page)
    return json.loads(payload.group(1))


def test_pick_spans_the_slider_and_keeps_its_start() -> None:
    assert grid.pick(17, 5, 3) == (0, 3, 8, 12, 16)
    assert grid.pick(17, 5, 16) == (0, 4, 8, 12, 16)
    assert grid.pick(4, 9, 2) == (0, 1, 2, 3)
    assert grid.pick(40, 1, 7) == (7,)


def test_slider_sizes_fit_the_budget_and_favour_the_last_slider() -> None:
    assert grid.slider_sizes([100, 100], 48) == [5, 9]
    assert grid.slider_sizes([2, 100], 48) == [2, 17]
    assert grid.slider_sizes([100, 100, 100], 2) == [1, 1, 1]
    for counts in ([7], [30, 30, 30], [3, 99, 12, 40]):
        for room in (1, 3, 10, 48, 200):
            sizes = grid.slider_sizes(counts, room)
            assert all(1 <= s <= c for s, c in zip(sizes, counts, strict=True))
            assert sizes == [1] * len(counts) or __import__("math").prod(sizes) <= room


def test_a_widget_offers_each_control_with_its_label_and_draws_every_grid_point(settings):
    view = frames.site_explore(
        draw,
        rate=ipywidgets.FloatLogSlider(value=0.1, base=10, min=-3, max=1, step=0.25,
                                       description="η"),
        start=ipywidgets.Dropdown(options=["zero", "one"], description="start"),
        fixed=ipywidgets.fixed(3))
    data = data_of(view)
    assert [(c["label"], c["kind"]) for c in data["controls"]] == [("η", "range"),
                                                                   ("start", "select")]
    rate = data["controls"][0]
    assert rate["labels"]["0"] == ["0.001", "0.01", "0.1", "1", "10"]  # ipywidgets' .3g
    assert rate["start"]["0"] == 2 and data["controls"][1]["labels"] == ["zero", "one"]
    assert len(data["frames"]) == 10 and len(set(data["frames"].values())) == 10
    assert "fixed=3" in data["alts"]["2.0"] and "rate=0.1" in data["alts"]["2.0"]
    assert all((settings.folder / name).is_file() for name in data["frames"].values())
    html = widget_html.widget_html(view)
    assert '<label for="course-widget-1-c0">η</label>' in html
    assert 'src="../_static/frames/' + data["frames"]["2.0"] + '"' in html
    assert "open in JupyterLab to explore" in html  # the slider shows 5 of its 17 values


def test_a_slider_whose_range_follows_a_choice_gets_that_range(settings) -> None:
    code = ipywidgets.Dropdown(options=["short", "long"], description="code")
    column = ipywidgets.IntSlider(value=0, min=0, max=2, description="column")
    code.observe(lambda change: setattr(column, "max", 2 if change["new"] == "short" else 5),
                 names="value")
    data = data_of(frames.site_explore(draw, code=code, column=column))
    assert data["controls"][1]["labels"] == {"0": ["0", "1", "2"],
                                             "1": ["0", "1", "2", "3", "4", "5"]}
    assert set(data["frames"]) == {f"0.{i}" for i in range(3)} | {f"1.{i}" for i in range(6)}
    assert (code.value, column.max) == ("short", 2)  # put back as it was


def test_choices_beyond_the_budget_stay_at_their_start_and_say_so(settings) -> None:
    assert grid.choice_sizes([3, 3, 3], 12) == [1, 3, 3]
    assert grid.choice_sizes([2, 10, 3], 12) == [2, 1, 3]
    assert grid.choice_sizes([2, 3], 12) == [2, 3]
    controls = {v: ipywidgets.Dropdown(options=["?", "0", "1"], value="0", description=v)
                for v in "ABC"}
    view = frames.site_explore(draw, **controls)
    data = data_of(view)
    assert len(data["frames"]) == 9 and all(k.startswith("1.") for k in data["frames"])
    assert [c["frozen"] for c in data["controls"]] == [True, False, False]
    html = widget_html.widget_html(view)
    assert html.count(" disabled") == 1 and "greyed-out control stays at its starting" in html
    many = ipywidgets.Dropdown(options=[str(i) for i in range(20)], description="many")
    html = widget_html.widget_html(frames.site_explore(draw, many=many))
    assert "too many settings" in html and "open in JupyterLab to explore" in html


def test_sliders_keep_room_beside_many_choices(settings) -> None:
    data = data_of(frames.site_explore(
        draw, data=ipywidgets.Dropdown(options=["a", "b", "c"]),
        kernel=ipywidgets.Dropdown(options=["x", "y", "z"]),
        degree=ipywidgets.IntSlider(value=2, min=1, max=6)))
    # 12 frames: the choices may take 4 of them, so one is frozen and the slider gets 3 values
    assert [c.get("frozen") for c in data["controls"]] == [True, False, None]
    assert data["controls"][2]["labels"]["0.0"] == ["1", "2", "6"]
    assert len(data["frames"]) == 9


def test_step_and_run_buttons_around_a_widget_keep_their_action(settings) -> None:
    steps = ipywidgets.IntSlider(value=0, min=0, max=20, description="EM steps")
    view = frames.site_explore(draw, steps=steps)
    step = ipywidgets.Button(description="Step", tooltip="one more")
    step.on_click(lambda _: setattr(steps, "value", steps.value + 2))
    play = ipywidgets.Play(min=0, max=20, step=5, interval=150, description="Run")
    ipywidgets.jslink((play, "value"), (steps, "value"))
    html = widget_html.box_html(ipywidgets.VBox([ipywidgets.HBox([step, play]), view]))
    data = json.loads(re.search(r'class="course-widget-data">(.*?)</script>', html).group(1))
    assert data["actions"] == [
        {"kind": "step", "label": "Step", "control": 0, "step": 2, "title": "one more"},
        {"kind": "play", "label": "Run", "control": 0, "step": 5, "interval": 150}]
    assert steps.value == 0  # the button was pressed to learn its action, then undone
    assert '<button type="button" id="course-widget-1-a0" data-action="0" title="one more">' \
           "Step</button>" in html


def test_labels_and_alt_texts_are_escaped(settings) -> None:
    def hostile(**values) -> Figure:
        fig = draw(**values)
        fig.suptitle('<img src=x onerror="alert(1)">')
        return fig

    html = widget_html.widget_html(frames.site_explore(
        hostile, k=ipywidgets.IntSlider(value=1, min=0, max=2, description="<b>k</b>")))
    assert "<img src=x" not in html and "<b>k</b>" not in html
    assert "&lt;b&gt;k&lt;/b&gt;" in html
    payload = html.split('class="course-widget-data">')[1].removesuffix("</script></div>")
    assert "<" not in payload and json.loads(payload)["controls"][0]["label"] == "<b>k</b>"


def test_errata_are_flagged_words_not_denials() -> None:
    assert errata.flags("One slip in the book: it prints 1")
    assert errata.flags("*An erratum.* The slides take a wrong turn")
    assert errata.flags("Two slips in MMDS's text (errata, checked against the table)")
    assert not errata.flags("That is no slip: it differs by a constant")
    assert not errata.flags("This is not a slip but a rounding note")
    assert not errata.flags("the slippery slope")


def test_errata_of_a_walkthrough_come_with_their_section(tmp_path: Path) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("## 2 · The proof\n\nFine text.\n\nEach has a slip:\n\n"
                                      "* first\n* second\n\nNo slip here: none."),
        nbformat.v4.new_markdown_cell("## Summary\n\n* the sign slip above")])
    nbformat.write(nb, tmp_path / "x.ipynb")
    found = errata.errata(tmp_path / "x.ipynb")
    assert [(e.heading, e.anchor, e.text) for e in found] == [
        ("2 · The proof", "2--the-proof", "Each has a slip:\n\n* first\n* second")]


def test_the_lecture_table_is_the_readmes() -> None:
    lectures = pages.lecture_table((REPO / "README.md").read_text(), REPO / "notebooks")
    assert [lec.folder for lec in lectures] == sorted(p.name for p in
                                                      (REPO / "notebooks").iterdir() if p.is_dir())
    assert lectures[0].walkthrough == "notebooks/01_perceptron/perceptron_walkthrough"
    assert "MMDS §12.2" in lectures[0].sources
    home = pages.home_page(lectures)
    assert "{py:obj}`mllib.svm.solve_dual`" in home


def test_a_readme_without_the_table_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no '## Lectures' section"):
        pages.lecture_table("# Course\n", tmp_path)
    with pytest.raises(ValueError, match="does not link to notebooks"):
        pages.lecture_table("## Lectures\n\n| # | l | m | s |\n|---|---|---|---|\n"
                            "| 01 | Perceptron | x | y |\n", tmp_path)
    with pytest.raises(ValueError, match="needs one \\*_walkthrough.ipynb"):
        pages.lecture_table("## Lectures\n\n| # | l | m | s |\n|---|---|---|---|\n"
                            "| 01 | [P](notebooks/01_p/) | x | y |\n", tmp_path)


def test_the_api_reference_leaves_out_the_hidden_checks() -> None:
    names = pages.api_modules(REPO / "mllib")
    assert "mllib.perceptron" in names and "mllib.demos.perceptron" in names
    assert not [n for n in names if n.startswith("mllib.grading")]


HUB = pages.ClassHub("https://hub.example.edu/", "https://git.example.edu/ml-course/student.git")


def test_a_hub_link_pulls_the_release_and_opens_its_notebook() -> None:
    """nbgitpuller's parameters (its handlers read repo, branch, targetpath and urlpath), each
    value escaped once: parsing the link gives back what went in."""
    link = urlsplit(HUB.link("notebooks/01_perceptron/perceptron_exercises"))
    assert (link.scheme, link.netloc, link.path) == ("https", "hub.example.edu",
                                                     "/hub/user-redirect/git-pull")
    assert parse_qs(link.query, strict_parsing=True) == {
        "repo": [HUB.release], "branch": ["main"], "targetpath": ["lectures"],
        "urlpath": ["lab/tree/lectures/notebooks/01_perceptron/perceptron_exercises.ipynb"]}


@pytest.mark.parametrize(("url", "release", "problem"), [
    ("hub.example.edu", "x.git", "http\\(s\\) URL"), ("javascript:alert(1)", "x.git", "URL"),
    ("https://hub.example.edu", "", "release repository")])
def test_a_hub_without_an_address_or_release_is_refused(url: str, release: str,
                                                        problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        pages.ClassHub(url, release)


def test_a_lecture_page_gets_the_link_after_its_title_and_stays_valid() -> None:
    release = REPO / "notebooks" / "01_perceptron" / "perceptron_exercises.ipynb"
    nb = pages.with_hub_link(nbformat.read(release, as_version=4), "https://hub.example.edu/x")
    nbformat.validate(nb)
    assert nb.cells[0].source.startswith("# Lecture 01")
    assert f"[{pages.HUB_LINK_TEXT}](https://hub.example.edu/x)" in nb.cells[1].source
    assert len(nb.cells) == len(nbformat.read(release, as_version=4).cells) + 1
