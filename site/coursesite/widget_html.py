"""The static widget's HTML (controls, first frame, note, the frames' table as JSON), and the
Step and Run buttons a walk-through puts around a widget. Every label and alt text is escaped."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator

from coursesite.grid import key, start_key

EXPLORE = "open in JupyterLab to explore"


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


def widget_html(view, actions: list[dict] | None = None) -> str:
    """The static widget: controls, the first frame, a note, and the frames' table as JSON."""
    grid, number = view.grid, view.number
    ident = f"course-widget-{number}"
    start = start_key(grid.controls)
    choice = key(c["start"] for c in grid.controls if c["kind"] == "select")
    rows = [control_html(ident, i, c, choice, grid.explorable)
            for i, c in enumerate(grid.controls)]
    rows += [action_html(ident, i, a, grid.explorable) for i, a in enumerate(actions or [])]
    src = view.prefix + grid.frames[start]
    alt = grid.alts[start]
    if not grid.explorable:
        note = (f"This widget has too many settings to draw in advance: its first frame is shown; "
                f"{EXPLORE}.")
    elif grid.complete:
        note = "Every setting of this widget was drawn in advance."
    else:
        note = ("Drawn in advance for part of the settings (a grid of each slider's values; a "
                f"greyed-out control stays at its starting value); {EXPLORE} every value.")
    data = {"prefix": view.prefix, "controls": grid.controls, "frames": grid.frames,
            "alts": grid.alts, "actions": actions or []}
    # Inert inside <script type="application/json">, and no "<", ">" or "&" that an HTML parser
    # (or a reader of the page's source) could take for markup.
    payload = (json.dumps(data, ensure_ascii=True).replace("<", "\\u003c")
               .replace(">", "\\u003e").replace("&", "\\u0026"))
    return (
        f'<div class="course-widget" id="{ident}" role="group" aria-label="interactive figure">'
        f'<div class="course-widget-controls">{"".join(rows)}</div>'
        f'<img class="course-widget-frame" src="{html.escape(src)}" alt="{html.escape(alt)}">'
        # The same alt text, said again on every frame swap (course-widgets.js): a live region.
        '<p class="course-widget-status" role="status" aria-live="polite" aria-atomic="true">'
        f"{html.escape(alt)}</p>"
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
    pressed = ' aria-pressed="false"' if action["kind"] == "play" else ""  # a toggle: Run/pause
    return (f'<div class="course-widget-control"><button type="button" id="{ident}-a{i}" '
            f'data-action="{i}"{title}{pressed}{disabled}>{html.escape(action["label"])}'
            "</button></div>")
