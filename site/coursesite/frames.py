"""Widgets without a kernel: precompute each widget's frames over a grid of its controls.

Runs inside a walk-through's kernel while the site is built. :func:`install` puts
:func:`site_explore` in the place of :func:`mllib.demos.explore` before the notebook imports it,
so every widget a walk-through wires (directly, or through a builder of ``mllib.demos``) is
drawn here for a grid of its control values. The cell's output is then the site's own static
widget: the same controls with the same labels, a ``<script type="application/json">`` naming
the frame of every grid point, and the first frame as an ``<img>``. ``course-widgets.js`` (the
site's script) swaps frames when a control moves; the page works without it, showing the first
frame.

Frames are PNG files, named by the hash of their bytes (identical frames are stored once),
written to the folder given to :func:`install`; the page refers to them by a URL prefix.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from coursesite.grid import Grid, choices, grid_points, is_choice, is_slider, start_key
from coursesite.widget_html import box_html, widget_html
from mllib.plotting import alt_text

# The largest number of frames one widget may have (`make site`; the tests build with fewer).
# A widget whose choices alone (drop-downs, toggles) exceed it is shown as its first frame with
# "open in JupyterLab to explore". At 20-40 KB a frame and about two dozen widgets, this keeps
# the site far below 50 MB.
MAX_FRAMES = 48
MIME = "text/html"


@dataclass
class Settings:
    """Where frames go and how pages refer to them; set once per kernel by :func:`install`."""

    folder: Path
    url_prefix: str
    manifest: Path
    max_frames: int = MAX_FRAMES
    count: int = 0


SETTINGS: Settings | None = None


def install(folder: str, url_prefix: str, manifest: str, max_frames: int = MAX_FRAMES) -> None:
    """Replace ``mllib.demos.explore`` with :func:`site_explore` for this kernel.

    Call before the notebook imports ``mllib.demos``' lecture modules (they import ``explore``
    by name). Also renders boxes that hold a site widget (a walk-through's Step and Run buttons
    around it) as one static widget.
    """
    global SETTINGS
    import ipywidgets
    from IPython import get_ipython

    import mllib.demos

    SETTINGS = Settings(Path(folder), url_prefix, Path(manifest), max_frames)
    SETTINGS.folder.mkdir(parents=True, exist_ok=True)
    mllib.demos.explore = site_explore
    formatters = get_ipython().display_formatter.formatters
    formatters[MIME].for_type(ipywidgets.Box, box_html)
    mllib.demos.describe_shown_figures()


def encode(figure) -> bytes:
    """The frame's PNG: drawn at the figure's size and reduced to a 256-colour palette.

    Plots have few colours, so the palette keeps them (anti-aliased edges look the same at this
    size) while the file shrinks to about a quarter. Pillow's fast octree is several times
    quicker than its median cut here, and its files are no larger.
    """
    from PIL import Image

    raw = io.BytesIO()
    figure.savefig(raw, format="png", facecolor="white")
    raw.seek(0)
    image = Image.open(raw).convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def save(figure) -> tuple[str, str]:
    """Write the frame's PNG under its hash; return its file name and alt text."""
    data = encode(figure)
    name = hashlib.sha256(data).hexdigest()[:20] + ".png"
    path = SETTINGS.folder / name
    if not path.exists():
        path.write_bytes(data)
    return name, alt_text(figure)


def draw_grid(frame: Callable, controls: dict) -> Grid:
    """Draw ``frame`` at every grid point of ``controls``."""
    import ipywidgets

    fixed_values = {n: w.value for n, w in controls.items() if isinstance(w, ipywidgets.fixed)}
    shown_widgets = {n: w for n, w in controls.items() if n not in fixed_values}
    unknown = [n for n, w in shown_widgets.items() if not (is_choice(w) or is_slider(w))]
    if unknown:
        raise ValueError(f"the site cannot precompute the control(s) {unknown}: add the kind to "
                         "site/coursesite/frames.py")
    shown, points = grid_points(shown_widgets, fixed_values, SETTINGS.max_frames)
    frames, alts = {}, {}
    for point, values in points:
        frames[point], alts[point] = save(frame(**values))
    every = math.prod(len(choices(w).values) for w in shown_widgets.values())
    return Grid(shown, frames, alts, complete=len(points) == every, explorable=len(points) > 1)


class FramePNG:
    """The first frame, as ``mllib.demos.explore``'s widget keeps it (``view.result.data`` and
    its alt text, ``view.result.alt``: a walk-through's box around the widget shows them)."""

    def __init__(self, path: Path, alt: str) -> None:
        self.data = path.read_bytes()
        self.alt = alt


def site_explore(frame: Callable, **controls):
    """:func:`mllib.demos.explore` for the site: a box of the same controls, shown as a static
    widget whose frames were drawn here for a grid of their values."""
    import ipywidgets

    started = time.perf_counter()
    grid = draw_grid(frame, controls)
    SETTINGS.count += 1
    number = SETTINGS.count
    first = grid.frames[start_key(grid.controls)]
    record = {"widget": number, "frames": len(grid.frames),
              "distinct": len(set(grid.frames.values())), "complete": grid.complete,
              "explorable": grid.explorable, "seconds": round(time.perf_counter() - started, 2),
              "controls": [c["label"] for c in grid.controls]}
    with SETTINGS.manifest.open("a") as out:
        out.write(json.dumps(record) + "\n")

    class SiteWidget(ipywidgets.VBox):
        def _repr_mimebundle_(self, **kwargs) -> dict:
            return {MIME: widget_html(self), "text/plain": "(a precomputed widget)"}

    shown = [w for w in controls.values() if not isinstance(w, ipywidgets.fixed)]
    view = SiteWidget(shown)
    view.grid, view.number, view.prefix = grid, number, SETTINGS.url_prefix
    view.result = FramePNG(SETTINGS.folder / first, grid.alts[start_key(grid.controls)])
    return view
