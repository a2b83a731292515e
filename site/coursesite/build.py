"""``make site``: the course as a static website, in ``site/_build/html``.

Steps: stage the sources Sphinx reads (``site/_build/src``: the generated pages, the release's
notebooks), execute each walk-through with its widgets precomputed (``frames``), then run Sphinx
with MyST-NB (``site/conf.py``). An executed walk-through and its frames are kept in
``site/_build/cache`` under a fingerprint of everything that shapes them (the notebook, ``mllib``,
this package, the frame budget), so a build after an unrelated change executes nothing again.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from coursesite import errata, frames, pages

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "site"
PACKAGE = Path(__file__).resolve().parent
KERNEL_SIDE = ("frames.py", "grid.py", "widget_html.py")  # what the kernel runs of coursesite
CELL_TIMEOUT = 900  # seconds: a widget cell draws every frame of its grid
PARALLEL_KERNELS = 2
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# Not copied from MathJax: the speech explorer (it fetches its rules, which file:// forbids),
# the unused SVG output's fonts, and the translations of MathJax's menus (English is built in).
MATHJAX_SKIP = ("mathmaps", "mathjax-sre.js", "SVG", "localization")
# The PyData theme ships a Jinja macro file among its static files; copied as is, it is a page
# of unrendered template code whose "links" lead nowhere.
NOT_PAGES = ("_static/webpack-macros.html",)


def fingerprint(notebook: Path, max_frames: int) -> str:
    """A hash of everything an executed walk-through depends on: the notebook, mllib, the
    kernel's side of the site and the frame budget."""
    digest = hashlib.sha256(notebook.read_bytes())
    digest.update(str(max_frames).encode())
    for path in [*sorted((REPO / "mllib").rglob("*.py")), *(PACKAGE / n for n in KERNEL_SIDE)]:
        digest.update(path.relative_to(REPO).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def setup_cell(folder: Path, prefix: str, max_frames: int) -> nbformat.NotebookNode:
    """The first cell the build runs (and removes): the site's explore, before any import."""
    return nbformat.v4.new_code_cell(
        f"import sys\nsys.path.insert(0, {str(SITE)!r})\nfrom coursesite import frames\n"
        f"frames.install({str(folder / 'frames')!r}, {prefix!r}, "
        f"{str(folder / 'manifest.jsonl')!r}, {max_frames})")


def tidy(nb: nbformat.NotebookNode) -> None:
    """Drop the setup cell and what a page cannot show without a kernel: widget views and
    state, and a static widget's fallback image (the page shows its frames)."""
    nb.cells.pop(0)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            data.pop(WIDGET_VIEW, None)
            if 'class="course-widget"' in data.get("text/html", ""):
                for mime in [m for m in data if m != "text/html"]:
                    data.pop(mime)


def describe_images(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Give each figure the alt text the kernel put in its output's metadata (frames.py).

    MyST-NB takes an image's alt text from its cell's metadata (``mystnb.image.alt``), not from
    the output's, so it is copied there for a cell that shows one image.
    """
    for cell in nb.cells:
        alts = [output.get("metadata", {}).get("image/png", {}).get("alt")
                for output in cell.get("outputs", []) if "image/png" in output.get("data", {})]
        if len(alts) == 1 and alts[0]:
            cell.metadata.setdefault("mystnb", {})["image"] = {"alt": alts[0]}
    return nb


async def execute(notebook: Path, cache: Path, prefix: str, max_frames: int,
                  slots: asyncio.Semaphore) -> Path:
    """The executed walk-through's cache folder (executed now unless already there)."""
    folder = cache / f"{notebook.stem}-{fingerprint(notebook, max_frames)}"
    if (folder / "executed.ipynb").is_file():
        return folder
    async with slots:
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        nb = nbformat.read(notebook, as_version=4)
        nb.cells.insert(0, setup_cell(folder, prefix, max_frames))
        started = time.monotonic()
        env = {k: v for k, v in os.environ.items() if k not in ("NBGRADER_EXECUTION",
                                                                "MPLBACKEND")}
        client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                resources={"metadata": {"path": str(notebook.parent)}})
        await client.async_execute(env=env)
        tidy(nb)
        nbformat.write(nb, folder / "executed.ipynb.part")
        (folder / "executed.ipynb.part").rename(folder / "executed.ipynb")
        print(f"  executed {notebook.relative_to(REPO)} in {time.monotonic() - started:.0f} s",
              flush=True)
    return folder


async def execute_all(notebooks: list[Path], cache: Path, prefixes: list[str],
                      max_frames: int) -> list[Path]:
    slots = asyncio.Semaphore(PARALLEL_KERNELS)
    return await asyncio.gather(*(execute(nb, cache, prefix, max_frames, slots)
                                  for nb, prefix in zip(notebooks, prefixes, strict=True)))


def copy_mathjax(static: Path) -> None:
    """MathJax 2 from jupyter-server-mathjax (the package that serves the formgrader's), less
    what the site never loads."""
    import jupyter_server_mathjax

    source = Path(jupyter_server_mathjax.__file__).parent / "static"
    target = static / "mathjax"
    if not target.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns(*MATHJAX_SKIP))


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text() != text:  # unchanged files stay unread by Sphinx
        path.write_text(text)


def linked(nb: nbformat.NotebookNode, hub: pages.ClassHub | None,
           document: str) -> nbformat.NotebookNode:
    """The lecture page's notebook, with its class hub link when the site has a hub."""
    return pages.with_hub_link(nb, hub.link(document)) if hub else nb


def stage(out: Path, max_frames: int, hub: pages.ClassHub | None = None) -> list[dict]:
    """Write everything Sphinx reads into ``out / "src"`` and ``out / "static"``; return the
    widgets' manifest (one record per widget). With ``hub``, each lecture page (walk-through
    and exercises) links to it."""
    src, static, cache = out / "src", out / "static", out / "cache"
    lectures = pages.lecture_table((REPO / "README.md").read_text(), REPO / "notebooks")
    write(src / "index.md", pages.home_page(lectures))
    write(src / "lectures.md", pages.lectures_page(lectures))
    write(src / "exercises.md", pages.exercises_page(lectures))
    found = [(lec, errata.errata(REPO / f"{lec.walkthrough}.ipynb")) for lec in lectures]
    write(src / "errata.md", pages.errata_page([(lec, e) for lec, e in found if e]))
    for name, text in pages.api_pages(pages.api_modules(REPO / "mllib")).items():
        write(src / "api" / name, text)
    for lec in lectures:
        exercises = nbformat.read(REPO / f"{lec.exercises}.ipynb", as_version=4)
        write(src / f"{lec.exercises}.ipynb",
              nbformat.writes(linked(exercises, hub, lec.exercises)))
    walkthroughs = [REPO / f"{lec.walkthrough}.ipynb" for lec in lectures]
    prefixes = ["../" * (lec.walkthrough.count("/")) + "_static/frames/" for lec in lectures]
    done = asyncio.run(execute_all(walkthroughs, cache, prefixes, max_frames))
    for stale in set(cache.iterdir()) - set(done):  # older fingerprints, unfinished runs
        shutil.rmtree(stale)
    frames_dir = static / "frames"
    shutil.rmtree(frames_dir, ignore_errors=True)
    frames_dir.mkdir(parents=True)
    manifest = []
    for lec, folder in zip(lectures, done, strict=True):
        executed = describe_images(nbformat.read(folder / "executed.ipynb", as_version=4))
        write(src / f"{lec.walkthrough}.ipynb",
              nbformat.writes(linked(executed, hub, lec.walkthrough)))
        for frame in (folder / "frames").glob("*.png"):
            shutil.copy2(frame, frames_dir / frame.name)
        records = folder / "manifest.jsonl"
        for line in records.read_text().splitlines() if records.is_file() else []:
            manifest.append({"lecture": lec.folder, **json.loads(line)})
    copy_mathjax(static)
    (out / "widgets.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def sphinx(out: Path) -> None:
    from sphinx.cmd.build import build_main

    os.environ["COURSE_SITE_STATIC"] = str(out / "static")
    code = build_main(["-b", "html", "-q", "-c", str(SITE), "-d", str(out / "doctrees"),
                       str(out / "src"), str(out / "html")])
    if code:
        raise SystemExit(f"sphinx-build failed (exit {code})")
    for name in NOT_PAGES:
        (out / "html" / name).unlink(missing_ok=True)


def weight(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=SITE / "_build",
                        help="build folder (default site/_build); the site is OUT/html")
    parser.add_argument("--max-frames", type=int, default=frames.MAX_FRAMES,
                        help="most frames drawn per widget (default %(default)s)")
    parser.add_argument("--hub", metavar="URL",
                        help="the class hub's address: each lecture page links to it "
                             "(README, \"Lecture material by link\")")
    parser.add_argument("--hub-release", metavar="GIT_URL",
                        help="the student release's git repository the hub's links pull")
    parser.add_argument("--hub-branch", default="main", help="its branch (default %(default)s)")
    args = parser.parse_args(argv)
    if args.max_frames < 1:
        parser.error("--max-frames must be at least 1")
    if bool(args.hub) != bool(args.hub_release):
        parser.error("--hub and --hub-release go together")
    try:
        hub = pages.ClassHub(args.hub, args.hub_release, args.hub_branch) if args.hub else None
    except ValueError as problem:
        parser.error(str(problem))
    out = args.out.resolve()
    print(f"staging and executing the walk-throughs into {out}", flush=True)
    manifest = stage(out, args.max_frames, hub)
    print("building the pages with Sphinx", flush=True)
    sphinx(out)
    html = out / "html"
    print(f"{len(manifest)} widgets, {sum(w['frames'] for w in manifest)} frames; "
          f"the site weighs {weight(html) / 1e6:.1f} MB: open {html / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
