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
import html
import io
import itertools
import json
import math
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

# The largest number of frames one widget may have (`make site`; the tests build with fewer).
# A widget whose choices alone (drop-downs, toggles) exceed it is shown as its first frame with
# "open in JupyterLab to explore". At 20-40 KB a frame and about two dozen widgets, this keeps
# the site far below 50 MB.
MAX_FRAMES = 48
# The numbers of positions a slider may get on the static page (always its first and last
# value and its starting one). Evenly spaced sets of these sizes nest, so a slider that gets
# more positions keeps the ones it had.
SLIDER_LEVELS = (1, 3, 5, 9, 17, 33)
EXPLORE = "open in JupyterLab to explore"
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
    formatters["image/png"] = described_png(formatters["image/png"])


def described_png(formatter):
    """The kernel's PNG formatter, giving every figure shown as a cell's result an alt text
    (:func:`alt_text`) in the output's metadata, where MyST-NB puts it on the page's image.

    ``%matplotlib inline`` registers its figure printer on whatever formatter is in place when
    it runs, so it lands on this one. An alt text the notebook provides itself is kept.
    """
    from IPython.core.formatters import PNGFormatter
    from matplotlib.figure import Figure

    class DescribedPNG(PNGFormatter):
        def __call__(self, obj):
            data = super().__call__(obj)
            if isinstance(obj, Figure) and data is not None and not isinstance(data, tuple):
                return data, {"alt": alt_text(obj)}
            return data

    described = DescribedPNG(parent=formatter.parent)
    described.singleton_printers.update(formatter.singleton_printers)
    described.type_printers.update(formatter.type_printers)
    described.deferred_printers.update(formatter.deferred_printers)
    return described


# -- the controls ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Choices:
    """The values a control offers, with the label shown for each, and the one it starts at."""

    values: tuple
    labels: tuple[str, ...]
    start: int


def is_choice(widget) -> bool:
    """A control whose values are named options (a drop-down, toggle or radio buttons)."""
    import ipywidgets

    return isinstance(widget, ipywidgets.widgets.widget_selection._Selection) and not isinstance(
        widget, ipywidgets.SelectionSlider | ipywidgets.SelectionRangeSlider)


def is_slider(widget) -> bool:
    import ipywidgets

    return isinstance(widget, ipywidgets.IntSlider | ipywidgets.FloatSlider
                      | ipywidgets.FloatLogSlider | ipywidgets.SelectionSlider)


def choices(widget) -> Choices:
    """Every value ``widget`` can take now, as ipywidgets steps through them."""
    import ipywidgets

    if isinstance(widget, ipywidgets.widgets.widget_selection._Selection):
        values, labels = tuple(widget._options_values), tuple(widget._options_labels)
    elif isinstance(widget, ipywidgets.FloatLogSlider):
        count = round((widget.max - widget.min) / widget.step) + 1
        values = tuple(widget.base ** (widget.min + i * widget.step) for i in range(count))
        labels = tuple(format(v, widget.readout_format) for v in values)
    elif isinstance(widget, ipywidgets.FloatSlider):
        count = round((widget.max - widget.min) / widget.step) + 1
        digits = max(0, -math.floor(math.log10(widget.step)) + 1)
        values = tuple(round(widget.min + i * widget.step, digits) for i in range(count))
        labels = tuple(format(v, widget.readout_format) for v in values)
    else:  # IntSlider
        values = tuple(range(widget.min, widget.max + 1, widget.step))
        labels = tuple(format(v, widget.readout_format) for v in values)
    start = min(range(len(values)), key=lambda i: distance(values[i], widget.value))
    return Choices(values, labels, start)


def distance(a, b) -> float:
    """How far apart two control values are: numbers by value, anything else equal or not."""
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return abs(a - b)
    return 0.0 if a == b else math.inf


def pick(count: int, size: int, start: int) -> tuple[int, ...]:
    """``size`` indices of ``range(count)``, evenly spaced from first to last, with ``start``.

    The inner index nearest to ``start`` is moved onto it, so a slider keeps its first, last
    and starting values.
    """
    if size >= count:
        return tuple(range(count))
    if size == 1:
        return (start,)
    chosen = [round(i * (count - 1) / (size - 1)) for i in range(size)]
    if start not in chosen:
        inner = range(1, size - 1) if size > 2 else range(size)
        chosen[min(inner, key=lambda i: abs(chosen[i] - start))] = start
    return tuple(sorted(chosen))


def slider_sizes(counts: list[int], room: int) -> list[int]:
    """How many positions each slider gets, so that their product stays within ``room``.

    Round robin from the last slider (the walk-throughs put the one to scrub, such as the
    update or the step, last), each time up to the next of :data:`SLIDER_LEVELS` (or all its
    values), while the product fits.
    """
    sizes = [1] * len(counts)
    grew = True
    while grew:
        grew = False
        for i in reversed(range(len(counts))):
            bigger = next((s for s in SLIDER_LEVELS if s > sizes[i]), counts[i])
            bigger = min(bigger, counts[i])
            if bigger > sizes[i] and math.prod(sizes) // sizes[i] * bigger <= room:
                sizes[i], grew = bigger, True
    return sizes


# -- the grid -------------------------------------------------------------------------------


@dataclass
class Grid:
    """The static widget's controls and the frame of every grid point.

    ``controls`` are the shown controls in the order the notebook gives them: for each, its
    parameter name, label, kind (``"select"`` or ``"range"``), and its labels and starting
    position. A range slider's positions can follow the choices (a slider whose maximum an
    observer sets when a drop-down changes), so its ``labels``, ``values`` and ``start`` are
    given per combination of the choices, keyed like ``"0.2"`` (the choices' positions joined by
    dots). ``frames`` maps a grid point, every control's position joined by dots, to a frame's
    file name, and ``alts`` to its alt text.
    """

    controls: list[dict]
    frames: dict[str, str]
    alts: dict[str, str]
    complete: bool  # every value of every control is offered
    explorable: bool  # more than one frame


def key(indices) -> str:
    return ".".join(str(i) for i in indices)


def slider_ranges(controls: dict, combos: list[tuple[int, ...]]) -> dict:
    """Each slider's :class:`Choices` under each combination of the choices' positions.

    The choices are set one combination at a time (their observers adjust the sliders), and
    every control is put back as it was.
    """
    chooser = [w for w in controls.values() if is_choice(w)]
    sliders = [w for w in controls.values() if is_slider(w)]
    starting = {name: w.value for name, w in controls.items()}
    ranges = {}
    try:
        for combo in combos:
            for w, index in zip(chooser, combo, strict=True):
                w.index = index
            ranges[combo] = [choices(w) for w in sliders]
    finally:
        for name, value in starting.items():
            controls[name].value = value
    return ranges


def numeric(values) -> list | None:
    """The values as JSON numbers, or None when they are not all numbers."""
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return [float(v) for v in values]
    return None


def choice_sizes(counts: list[int], room: int) -> list[int]:
    """How many options each choice offers: all of them, or only its starting one (frozen).

    The choices with the most options are frozen first (the first of equals), until the
    product of the others fits ``room``.
    """
    sizes = list(counts)
    for i in sorted(range(len(counts)), key=lambda i: -counts[i]):
        if math.prod(sizes) <= room:
            break
        sizes[i] = 1
    return sizes


def grid_points(controls: dict, fixed_values: dict) -> tuple[list[dict], list[tuple[str, dict]]]:
    """The shown controls and every grid point as (key, keyword arguments of the frame).

    The budget goes to the choices first, but where there are sliders, the choices take at
    most a third of it, so that a slider can still offer its first, starting and last values.
    """
    budget = SETTINGS.max_frames
    chooser = [w for w in controls.values() if is_choice(w)]
    has_sliders = any(is_slider(w) for w in controls.values())
    offered = choice_sizes([len(w._options_values) for w in chooser],
                           max(1, budget // 3) if has_sliders else budget)
    combos = list(itertools.product(*(range(len(w._options_values)) if size > 1 else [w.index]
                                      for w, size in zip(chooser, offered, strict=True))))
    ranges = slider_ranges(controls, combos)
    counts = [max(len(r[i].values) for r in ranges.values()) for i in range(len(ranges[combos[0]]))]
    sizes = slider_sizes(counts, max(1, budget // len(combos)))
    spots = {combo: [pick(len(r.values), size, r.start)
                     for r, size in zip(ranges[combo], sizes, strict=True)] for combo in combos}
    shown, slider, frozen = [], 0, iter(size == 1 for size in offered)
    for name, w in controls.items():
        entry = {"name": name, "label": w.description or name}
        if is_choice(w):
            entry.update(kind="select", labels=list(w._options_labels), start=w.index,
                         frozen=next(frozen))
        else:
            def at(combo, what, i=slider):
                return [getattr(ranges[combo][i], what)[j] for j in spots[combo][i]]
            entry.update(kind="range",
                         labels={key(c): at(c, "labels") for c in combos},
                         values={key(c): numeric(at(c, "values")) for c in combos},
                         start={key(c): spots[c][slider].index(ranges[c][slider].start)
                                for c in combos})
            slider += 1
        shown.append(entry)
    slider_of = {name: i for i, name in enumerate(n for n, w in controls.items() if is_slider(w))}
    points = []
    for combo in combos:
        for positions in itertools.product(*(range(len(p)) for p in spots[combo])):
            values, point, picks, choice = dict(fixed_values), [], iter(positions), iter(combo)
            for name, w in controls.items():
                if is_choice(w):
                    point.append(next(choice))
                    values[name] = w._options_values[point[-1]]
                else:
                    i = slider_of[name]
                    point.append(next(picks))
                    values[name] = ranges[combo][i].values[spots[combo][i][point[-1]]]
            points.append((key(point), values))
    return shown, points


def start_key(controls: list[dict]) -> str:
    """The grid point where every control is at its starting position."""
    choice = key(c["start"] for c in controls if c["kind"] == "select")
    return key(c["start"] if c["kind"] == "select" else c["start"][choice] for c in controls)


# -- drawing --------------------------------------------------------------------------------


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


def alt_text(figure) -> str:
    """What the figure shows, in the words of its own titles and axis labels.

    Issue 26 asks for alt texts generated from the data each figure plots; until the figures
    carry them, the titles (which state the frame's numbers) and the axes' names describe it.
    """
    parts = []
    if figure._suptitle is not None and figure._suptitle.get_text():
        parts.append(figure._suptitle.get_text())
    for ax in figure.axes:
        title = " ".join(t.get_text() for t in (ax.title, ax._left_title, ax._right_title)
                         if t.get_text())
        axes = " against ".join(label for label in (ax.get_ylabel(), ax.get_xlabel()) if label)
        text = "; ".join(p for p in (title, axes and f"axes: {axes}") if p)
        if text:
            parts.append(text)
    text = " | ".join(parts) if parts else "an unlabelled plot"
    return "Figure: " + re.sub(r"\$([^$]*)\$", r"\1", text)  # mathtext read as plain text


def save(figure) -> tuple[str, str]:
    """Write the frame's PNG under its hash; return its file name and alt text."""
    data = encode(figure)
    name = hashlib.sha256(data).hexdigest()[:20] + ".png"
    path = SETTINGS.folder / name
    if not path.exists():
        path.write_bytes(data)
    return name, alt_text(figure)


# -- the widget -----------------------------------------------------------------------------


def draw_grid(frame: Callable, controls: dict) -> Grid:
    """Draw ``frame`` at every grid point of ``controls``."""
    import ipywidgets

    fixed_values = {n: w.value for n, w in controls.items() if isinstance(w, ipywidgets.fixed)}
    shown_widgets = {n: w for n, w in controls.items() if n not in fixed_values}
    unknown = [n for n, w in shown_widgets.items() if not (is_choice(w) or is_slider(w))]
    if unknown:
        raise ValueError(f"the site cannot precompute the control(s) {unknown}: add the kind to "
                         "site/coursesite/frames.py")
    shown, points = grid_points(shown_widgets, fixed_values)
    frames, alts = {}, {}
    for point, values in points:
        frames[point], alts[point] = save(frame(**values))
    every = math.prod(len(choices(w).values) for w in shown_widgets.values())
    return Grid(shown, frames, alts, complete=len(points) == every, explorable=len(points) > 1)


class FramePNG:
    """The first frame, as ``mllib.demos.explore``'s widget keeps it (``view.result.data``)."""

    def __init__(self, path: Path) -> None:
        self.data = path.read_bytes()


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
                              "distinct": len(set(grid.frames.values())),
                              "complete": grid.complete, "explorable": grid.explorable,
                              "seconds": round(time.perf_counter() - started, 2),
                              "controls": [c["label"] for c in grid.controls]}
    with SETTINGS.manifest.open("a") as out:
        out.write(json.dumps(record) + "\n")

    class SiteWidget(ipywidgets.VBox):
        def _repr_mimebundle_(self, **kwargs) -> dict:
            return {MIME: widget_html(self), "text/plain": "(a precomputed widget)"}

    shown = [w for w in controls.values() if not isinstance(w, ipywidgets.fixed)]
    view = SiteWidget(shown)
    view.grid, view.number, view.result = grid, number, FramePNG(SETTINGS.folder / first)
    return view


# -- buttons around a widget ----------------------------------------------------------------


def site_widgets(box) -> Iterator:
    """The site widgets inside ``box``, depth first."""
    for child in getattr(box, "children", ()):
        if hasattr(child, "grid"):
            yield child
        else:
            yield from site_widgets(child)


def buttons(box) -> Iterator:
    import ipywidgets

    for child in getattr(box, "children", ()):
        if isinstance(child, ipywidgets.Button | ipywidgets.Play):
            yield child
        elif not hasattr(child, "grid"):
            yield from buttons(child)


def button_action(button, view) -> dict | None:
    """What a Step button or a Run (Play) control does to the widget's sliders.

    A button is pressed once here, and the slider it moved, and by how much, is read off
    (then put back). A Play control is linked to the slider it drives (``jslink``).
    """
    import ipywidgets
    from ipywidgets.widgets.widget_link import Link

    names = {id(w): i for i, w in enumerate(view.children)}
    if isinstance(button, ipywidgets.Play):
        for link in ipywidgets.widgets.widget._instances.values():
            if isinstance(link, Link) and link.source[0] is button:
                target = link.target[0]
                if id(target) in names:
                    return {"kind": "play", "label": button.description or "Run",
                            "control": names[id(target)], "step": button.step,
                            "interval": button.interval}
        return None
    before = [getattr(w, "value", None) for w in view.children]
    button.click()
    after = [getattr(w, "value", None) for w in view.children]
    for w, value in zip(view.children, before, strict=True):
        if hasattr(w, "value"):
            w.value = value
    moved = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    if len(moved) != 1:
        return None
    i = moved[0]
    return {"kind": "step", "label": button.description, "control": i,
            "step": after[i] - before[i], "title": button.tooltip or ""}


def box_html(box) -> str | None:
    """A box holding one site widget (and its buttons) as that widget with the buttons."""
    views = list(site_widgets(box))
    if len(views) != 1:
        return None
    view = views[0]
    actions = [a for a in (button_action(b, view) for b in buttons(box)) if a]
    return widget_html(view, actions)


# -- HTML -----------------------------------------------------------------------------------


def widget_html(view, actions: list[dict] | None = None) -> str:
    """The static widget: controls, the first frame, a note, and the frames' table as JSON."""
    grid, number = view.grid, view.number
    ident = f"course-widget-{number}"
    start = start_key(grid.controls)
    choice = key(c["start"] for c in grid.controls if c["kind"] == "select")
    rows = [control_html(ident, i, c, choice, grid.explorable)
            for i, c in enumerate(grid.controls)]
    rows += [action_html(ident, i, a, grid.explorable) for i, a in enumerate(actions or [])]
    src = SETTINGS.url_prefix + grid.frames[start]
    alt = grid.alts[start]
    if not grid.explorable:
        note = (f"This widget has too many settings to draw in advance: its first frame is shown; "
                f"{EXPLORE}.")
    elif grid.complete:
        note = "Every setting of this widget was drawn in advance."
    else:
        note = ("Drawn in advance for part of the settings (a grid of each slider's values; a "
                f"greyed-out control stays at its starting value); {EXPLORE} every value.")
    data = {"prefix": SETTINGS.url_prefix, "controls": grid.controls, "frames": grid.frames,
            "alts": grid.alts, "actions": actions or []}
    # Inert inside <script type="application/json">, and no "<", ">" or "&" that an HTML parser
    # (or a reader of the page's source) could take for markup.
    payload = (json.dumps(data, ensure_ascii=True).replace("<", "\\u003c")
               .replace(">", "\\u003e").replace("&", "\\u0026"))
    return (
        f'<div class="course-widget" id="{ident}" role="group" aria-label="interactive figure">'
        f'<div class="course-widget-controls">{"".join(rows)}</div>'
        f'<img class="course-widget-frame" src="{html.escape(src)}" alt="{html.escape(alt)}">'
        f'<p class="course-widget-status" aria-live="polite">{html.escape(alt)}</p>'
        f'<p class="course-widget-note">{html.escape(note)}</p>'
        f'<script type="application/json" class="course-widget-data">{payload}</script>'
        "</div>"
    )


def control_html(ident: str, i: int, control: dict, choice: str, enabled: bool) -> str:
    field_id = f"{ident}-c{i}"
    label = f'<label for="{field_id}">{html.escape(control["label"])}</label>'
    disabled = "" if enabled else " disabled"
    if control["kind"] == "select":
        disabled = disabled or (" disabled" if control["frozen"] else "")
        options = "".join(
            f'<option value="{j}"{" selected" if j == control["start"] else ""}>'
            f"{html.escape(text)}</option>" for j, text in enumerate(control["labels"]))
        field_html = (f'<select id="{field_id}" data-control="{i}"{disabled}>{options}'
                      "</select>")
    else:
        labels, start = control["labels"][choice], control["start"][choice]
        fixed = "" if len(labels) > 1 else " disabled"
        field_html = (
            f'<input type="range" id="{field_id}" data-control="{i}" min="0" '
            f'max="{len(labels) - 1}" step="1" value="{start}" '
            f'aria-valuetext="{html.escape(labels[start])}"{disabled or fixed}>'
            f'<output for="{field_id}">{html.escape(labels[start])}</output>')
    return f'<div class="course-widget-control">{label}{field_html}</div>'


def action_html(ident: str, i: int, action: dict, enabled: bool) -> str:
    disabled = "" if enabled else " disabled"
    title = f' title="{html.escape(action["title"])}"' if action.get("title") else ""
    return (f'<div class="course-widget-control"><button type="button" id="{ident}-a{i}" '
            f'data-action="{i}"{title}{disabled}>{html.escape(action["label"])}</button></div>')
