"""The site's generated pages: the home page (from the README's lecture table), the errata and
the API reference. Each is MyST Markdown written into the staging folder that Sphinx reads."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import nbformat

from coursesite.errata import Erratum

CELL = re.compile(r"(?<!\\)\|")  # a table cell boundary: a | that is not escaped as \|
MODULE = re.compile(r"`(mllib(?:\.\w+)+)`")
# mllib's modules in the API reference: every public one but the hidden checks (grading).
HIDDEN = ("mllib.grading",)


@dataclass(frozen=True)
class Lecture:
    """One row of the README's lecture table, and the lecture's two notebooks on the site."""

    number: str
    title: str
    folder: str  # e.g. "01_perceptron"
    modules: str  # the cell as written, Markdown
    sources: str
    walkthrough: str  # document names, e.g. "notebooks/01_perceptron/perceptron_walkthrough"
    exercises: str


def split_row(line: str) -> list[str]:
    return [cell.strip() for cell in CELL.split(line.strip().strip("|"))]


def lecture_table(readme: str, notebooks: Path) -> list[Lecture]:
    """The rows of the README's table under "## Lectures", with their notebooks.

    Raises ValueError when the table is missing or a row names a folder without a walk-through
    and an exercises notebook.
    """
    section = re.split(r"^## Lectures\s*$", readme, maxsplit=1, flags=re.M)
    if len(section) < 2:
        raise ValueError("README.md has no '## Lectures' section to take the lecture table from")
    lines = [line for line in re.split(r"^## ", section[1], maxsplit=1, flags=re.M)[0]
             .splitlines() if line.startswith("|")]
    if len(lines) < 3:
        raise ValueError("README.md's '## Lectures' section has no table")
    lectures = []
    for line in lines[2:]:
        number, lecture, modules, sources = split_row(line)
        match = re.fullmatch(r"\[(.+)\]\(notebooks/([^/)]+)/?\)", lecture)
        if not match:
            raise ValueError(f"README.md's lecture row {number} does not link to notebooks/NN_x/")
        title, folder = match.groups()
        walkthrough = sorted((notebooks / folder).glob("*_walkthrough.ipynb"))
        exercises = sorted((notebooks / folder).glob("*_exercises.ipynb"))
        if len(walkthrough) != 1 or len(exercises) != 1:
            raise ValueError(f"notebooks/{folder} needs one *_walkthrough.ipynb and one "
                             "*_exercises.ipynb")
        lectures.append(Lecture(number, title, folder, modules, sources,
                                f"notebooks/{folder}/{walkthrough[0].stem}",
                                f"notebooks/{folder}/{exercises[0].stem}"))
    return lectures


@dataclass(frozen=True)
class ClassHub:
    """The class hub a site links its lecture pages to, and the student release it pulls.

    ``release`` is the git repository of the student release (``course bundle``'s folder,
    pushed: the release notebooks under ``notebooks/``); each student's server clones it into
    ``~/lectures`` with nbgitpuller and merges it again at every later click, keeping the
    student's own edits (README, "Lecture material by link").
    """

    url: str  # e.g. "https://hub.example.edu"
    release: str  # a git URL (or, on the hub's own machine, a path) every server can clone
    branch: str = "main"
    folder: str = "lectures"  # where the release lands in each student's home

    def __post_init__(self) -> None:
        if urlsplit(self.url).scheme not in ("http", "https") or not urlsplit(self.url).netloc:
            raise ValueError(f"the class hub's address must be an http(s) URL, not {self.url!r}")
        if not self.release or not self.branch:
            raise ValueError("a class hub link needs the release repository and its branch")

    def link(self, document: str) -> str:
        """nbgitpuller's link that pulls the release and opens ``document`` (a notebook's
        document name, e.g. ``notebooks/01_perceptron/perceptron_exercises``) in JupyterLab.

        ``/hub/user-redirect/`` sends whoever clicks to their own server (starting it, after a
        login or an LTI launch); ``git-pull`` is nbgitpuller's page there.
        """
        query = urlencode({"repo": self.release, "branch": self.branch,
                           "targetpath": self.folder,
                           "urlpath": f"lab/tree/{self.folder}/{document}.ipynb"})
        return f"{self.url.rstrip('/')}/hub/user-redirect/git-pull?{query}"


HUB_LINK_TEXT = "Run this notebook on the class hub"


def with_hub_link(nb: nbformat.NotebookNode, link: str) -> nbformat.NotebookNode:
    """The notebook with a cell linking to the class hub after its title cell."""
    cell = nbformat.v4.new_markdown_cell(f"[{HUB_LINK_TEXT}]({link}): your copy in your own "
                                         "server; clicking again brings the latest version "
                                         "and keeps your edits.")
    cell.id = "class-hub-link"  # not nbformat's random one: the page is the same each build
    nb.cells.insert(1, cell)
    return nb


def api_link(match: re.Match) -> str:
    """`mllib.x` or `mllib.x.f` as a cross-reference into the API reference."""
    return f"{{py:obj}}`{match.group(1)}`"


def home_page(lectures: list[Lecture]) -> str:
    rows = [f"| {lec.number} | [{lec.title}]({lec.walkthrough}.ipynb) | "
            f"[exercises]({lec.exercises}.ipynb) | {MODULE.sub(api_link, lec.modules)} | "
            f"{lec.sources} |" for lec in lectures]
    return f"""# ML course companion

An introductory machine-learning course: for each lecture a **walk-through** (explanations,
worked examples from the texts, figures and widgets) and an **exercises** notebook, autograded
with nbgrader. This site shows every walk-through executed, with its figures; its widgets were
drawn in advance for a grid of their controls, so moving a slider here swaps the figure
without any kernel. The exercises are shown as students receive them; to solve and check them,
install the course and open it in JupyterLab (`make lab`, see the repository's README).
`mllib`, the small numpy library that implements every algorithm of the course, is documented
in the [API reference](api/index.md); the slips in the texts that the lectures point out are
collected on the [errata](errata.md) page.

## Lectures

| # | lecture | exercises | library module | sources |
|---|---|---|---|---|
{chr(10).join(rows)}

```{{toctree}}
:hidden:

lectures
exercises
api/index
errata
```
"""


def list_page(title: str, intro: str, documents: list[str]) -> str:
    """A page that lists documents (the walk-throughs, or the exercises) in a toctree."""
    entries = "\n".join(f"{document}.ipynb" for document in documents)
    return f"# {title}\n\n{intro}\n\n```{{toctree}}\n:maxdepth: 1\n\n{entries}\n```\n"


def lectures_page(lectures: list[Lecture]) -> str:
    return list_page("Lectures", "Each walk-through executed, with its figures and widgets.",
                     [lec.walkthrough for lec in lectures])


def exercises_page(lectures: list[Lecture]) -> str:
    return list_page("Exercises", "Each exercise notebook as students receive it: the prompts "
                     "and the visible tests. Solve them in JupyterLab, where **Validate** runs "
                     "the tests.", [lec.exercises for lec in lectures])


def errata_page(found: list[tuple[Lecture, list[Erratum]]]) -> str:
    """One section per lecture that flags a slip, each erratum quoted with a link to its place."""
    parts = ["# Errata in the texts", "",
             "The walk-throughs point out slips in the texts they follow (the MMDS book, the "
             "CS446 and CS578 slides and others). Here they are together, as the lectures word "
             "them, each with a link to the section where it is discussed.", ""]
    for lecture, errata in found:
        parts += [f"## {lecture.number} · {lecture.title}", ""]
        for erratum in errata:
            parts += [f"**In [{erratum.heading}]({lecture.walkthrough}.ipynb#{erratum.anchor})**",
                      "", erratum.text, ""]
    return "\n".join(parts)


def api_modules(package: Path) -> list[str]:
    """The dotted names of ``mllib``'s public modules, without the hidden checks."""
    names = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if any(part.startswith("_") for part in name.split(".")):
            continue
        if not name.startswith(HIDDEN):
            names.append(name)
    return names


def api_pages(modules: list[str]) -> dict[str, str]:
    """The API reference's pages: an index and one page per module, by file name."""
    index = ["# API reference: `mllib`", "",
             "Generated from the docstrings: each function gives its formula, the shapes of "
             "its arrays and the section of the text it follows.", "",
             "```{toctree}", ":maxdepth: 1", "", *modules, "```", ""]
    pages = {"index.md": "\n".join(index)}
    for name in modules:
        # autodoc's directives write reStructuredText, so MyST hands them to the RST parser
        pages[f"{name}.md"] = (f"# `{name}`\n\n```{{eval-rst}}\n.. automodule:: {name}\n"
                               "   :members:\n   :show-inheritance:\n```\n")
    return pages
