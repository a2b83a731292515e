"""The grid of control values a precomputed widget offers, and the frame of each grid point.

Pure logic on ipywidgets controls (no drawing): which values each control takes, how many of
them fit the frame budget, and the grid points' keys, which the page's script builds the same
way (the controls' positions joined by dots).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

# The numbers of positions a slider may get on the static page (always its first and last
# value and its starting one). Evenly spaced sets of these sizes nest, so a slider that gets
# more positions keeps the ones it had.
SLIDER_LEVELS = (1, 3, 5, 9, 17, 33)


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


def grid_points(controls: dict, fixed_values: dict, budget: int,
                ) -> tuple[list[dict], list[tuple[str, dict]]]:
    """The shown controls and every grid point as (key, keyword arguments of the frame).

    The budget goes to the choices first, but where there are sliders, the choices take at
    most a third of it, so that a slider can still offer its first, starting and last values.
    """
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
