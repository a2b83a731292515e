"""Widget logic for the walk-through notebooks, one module per lecture.

Each demo is a plain function of the slider values that returns data (tested without a browser)
or a matplotlib Figure. The notebooks only wire sliders to these functions with :func:`explore`.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable

from matplotlib.figure import Figure


def grading() -> bool:
    """True while nbgrader executes the notebook (it sets ``NBGRADER_EXECUTION``)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def png(fig: Figure) -> bytes:
    """The PNG a widget shows for ``fig``: drawn once, at the figure's own size.

    Figures from :func:`mllib.plotting.figure` have a fixed layout that holds their labels, so
    the PNG needs no ``bbox_inches="tight"`` pass: Jupyter's inline default, which lays out and
    draws every artist twice and so doubles the cost of a slider move.
    """
    buffer = io.BytesIO()
    # Light compression: zlib's default level takes longer than drawing a simple figure, and
    # the image only travels from the kernel to the browser.
    fig.savefig(buffer, format="png", facecolor="white", pil_kwargs={"compress_level": 1})
    return buffer.getvalue()


class PNG:
    """A frame's image, which Jupyter displays as ``image/png`` (through ``_repr_png_``); the
    ``figure`` it was drawn from stays at hand for tests."""

    def __init__(self, figure: Figure) -> None:
        self.figure = figure
        self.data = png(figure)

    def _repr_png_(self) -> bytes:
        return self.data


def explore(frame: Callable[..., Figure], **controls):
    """Show ``frame`` with a widget per keyword (``ipywidgets.interactive``).

    While nbgrader executes the notebook, draw a single static frame at the controls' current
    values instead: live widgets have no front end there and can stall autograding
    (nbgrader #1359).

    Parameters
    ----------
    frame : callable
        Returns the Figure to show for the given control values.
    **controls
        ipywidgets controls (sliders, dropdowns, ``ipywidgets.fixed``), by parameter name.

    Returns
    -------
    The ``ipywidgets.interactive`` box (its ``children`` are the controls, then the output), or
    the static Figure. Either is shown once as the cell's result. Each redraw shows the frame as
    the PNG of :func:`png`. The box's cell output also carries the first frame as ``image/png``:
    a front end with widgets shows the live box, while a notebook executed headless (nbconvert,
    a notebook viewer) has no widget state and shows that static frame instead of the box's
    ``interactive(...)`` text.
    """
    if grading():
        return frame(**{name: control.value for name, control in controls.items()})
    import ipywidgets

    class Explorer(ipywidgets.interactive):
        def _repr_mimebundle_(self, **kwargs) -> dict:
            return {**super()._repr_mimebundle_(**kwargs), "image/png": self.result.data}

    def redraw(**values) -> PNG:
        return PNG(frame(**values))

    # auto_display shows the returned PNG in the widget's output area, as interact() does;
    # unlike interact(), interactive() does not also display itself, so the cell shows it once.
    return Explorer(redraw, {"auto_display": True}, **controls)
