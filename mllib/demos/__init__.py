"""Widget logic for the walk-through notebooks, one module per lecture.

Each demo is a plain function of the slider values that returns data (tested without a browser)
or a matplotlib Figure. The notebooks only wire sliders to these functions with :func:`explore`.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from matplotlib.figure import Figure


def grading() -> bool:
    """True while nbgrader executes the notebook (it sets ``NBGRADER_EXECUTION``)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


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
    the static Figure. Either is shown once as the cell's result.
    """
    if grading():
        return frame(**{name: control.value for name, control in controls.items()})
    import ipywidgets

    # auto_display shows the returned Figure in the widget's output area, as interact() does;
    # unlike interact(), interactive() does not also display itself, so the cell shows it once.
    return ipywidgets.interactive(frame, {"auto_display": True}, **controls)
