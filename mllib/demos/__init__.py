"""Widget logic for the walk-through notebooks, one module per lecture.

Each demo is a plain function of the slider values that returns data (tested without a browser)
or a matplotlib Figure. The notebooks only wire sliders to these functions with :func:`explore`.
A widget whose frame function keeps one figure and redraws it in place (:mod:`mllib.demos.live`)
returns the same Figure on every call: read or encode a frame before asking for the next one.

Every image shown carries its figure's alt text (:func:`mllib.plotting.alt_text`) in the output's
metadata (``{"image/png": {"alt": ...}}``), where nbconvert and MyST-NB put it on the page's
``<img>``: widget frames through :class:`PNG`, and figures shown as a cell's result through the
kernel's PNG formatter, which importing this package wraps (:func:`describe_shown_figures`).
JupyterLab (4.6) ignores that metadata, so a live widget's frame also comes as ``text/html``, an
``<img>`` with the alt text, which JupyterLab prefers, and under the figure the widget says the
same text in a status line that screen readers announce on every redraw (:func:`explore`).
"""

from __future__ import annotations

import base64
import html
import os
import traceback
from collections.abc import Callable

from matplotlib.figure import Figure

from mllib.demos.live import render
from mllib.plotting import alt_text


def grading() -> bool:
    """True while nbgrader executes the notebook (it sets ``NBGRADER_EXECUTION``)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def png(fig: Figure) -> bytes:
    """The PNG a widget shows for ``fig``: drawn once, at the figure's own size.

    Figures from :func:`mllib.plotting.figure` have a fixed layout that holds their labels, so
    the PNG needs no ``bbox_inches="tight"`` pass: Jupyter's inline default, which lays out and
    draws every artist twice and so doubles the cost of a slider move. A widget's figure that is
    redrawn in place draws only what changed (:func:`mllib.demos.live.render`).
    """
    return render(fig)


class PNG:
    """A frame's image, which Jupyter displays as ``image/png`` with its alt text (through
    ``_repr_png_``); the ``figure`` it was drawn from stays at hand for tests."""

    def __init__(self, figure: Figure) -> None:
        self.figure = figure
        self.data = png(figure)
        self.alt = alt_text(figure)

    def _repr_png_(self) -> tuple[bytes, dict]:
        return self.data, {"alt": self.alt}


def describe_shown_figures(shell=None) -> None:
    """Make the kernel's PNG formatter put each shown Figure's alt text in the output metadata.

    ``%matplotlib inline`` registers its figure printer on the formatter in place when it runs,
    so the printers registered so far are carried over to the replacement, and a later
    ``%matplotlib inline`` lands on it too. An alt text the printer provides itself is kept.
    Does nothing outside IPython.
    """
    from IPython import get_ipython
    from IPython.core.formatters import PNGFormatter

    shell = shell or get_ipython()
    if shell is None or getattr(shell.display_formatter.formatters["image/png"], "describes",
                                False):
        return

    class DescribedPNG(PNGFormatter):
        describes = True

        def __call__(self, obj):
            data = super().__call__(obj)
            if isinstance(obj, Figure) and data is not None and not isinstance(data, tuple):
                return data, {"alt": alt_text(obj)}
            return data

    current = shell.display_formatter.formatters["image/png"]
    described = DescribedPNG(parent=current.parent)
    for table in ("singleton_printers", "type_printers", "deferred_printers"):
        getattr(described, table).update(getattr(current, table))
    shell.display_formatter.formatters["image/png"] = described


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

    Each redraw also writes the frame's alt text under the figure, in a ``role="status"`` line
    (``aria-live="polite"``, an ``ipywidgets.HTML`` after the output; :func:`summary_html`), so a
    screen-reader user hears what changed; the figure's own ``<img>`` carries the same text as
    its alt (:func:`frame_output`). The box has the class ``mllib-explorer``.

    Notes
    -----
    A frame reaches the output widget as its ``outputs`` state, set from the kernel
    (:func:`frame_output`), never by displaying inside ``with output:`` as ipywidgets'
    ``interactive`` does. Displayed there, the image travels as a display message that the
    front end must capture and send back to the kernel as the output widget's state.
    Headless, nbclient plays that front end, and it sends the state back through
    jupyter_client's ``Session.send``, which writes to a plain shadow of the asyncio shell
    socket. When the cell's execute reply has reached that socket but the event loop has not
    yet run, the plain send consumes the socket's wake-up, and nbclient's pending poll for the
    reply never returns: ``jupyter nbconvert --execute`` (no timeout by default) waits forever.
    Set from the kernel, the state needs nothing sent back, so no execution waits on that race.
    """
    if grading():
        return frame(**{name: control.value for name, control in controls.items()})
    import ipywidgets

    class Explorer(ipywidgets.interactive):
        def __init__(self, f: Callable[..., Figure], **widgets) -> None:
            # interactive() draws the first frame while it is built: the summary must exist.
            self.summary = ipywidgets.HTML()
            super().__init__(f, **widgets)
            self.children = (*self.children, self.summary)
            self.add_class(EXPLORER_CLASS)

        def _repr_mimebundle_(self, **kwargs) -> tuple[dict, dict]:
            return with_first_frame(super()._repr_mimebundle_(**kwargs), self.result)

        def update(self, *args) -> None:
            """Draw the frame for the controls' values into the output widget, and say it."""
            self.kwargs = {w._kwarg: w.get_interact_value() for w in self.kwargs_widgets}
            self.out.outputs, self.result = frame_output(self.f, self.kwargs, self.result)
            self.summary.value = summary_html(frame_summary(self.out.outputs[0], self.result))

    # Explorer draws its first frame on construction, as interactive() does, and is shown once
    # as the cell's result (interact() would also display it). ``**values`` takes exactly the
    # controls given, never a widget made up from a default of ``frame``.
    return Explorer(lambda **values: frame(**values), **controls)


EXPLORER_CLASS = "mllib-explorer"
SUMMARY_CLASS = "mllib-frame-summary"


def summary_html(text: str) -> str:
    """The status line under a widget's figure, saying ``text`` (escaped).

    ``role="status"`` is a polite live region: a screen reader reads the new text once the user
    is idle. ipywidgets' HTML view replaces its content on each change, so the line is a new
    element each time: no ipywidgets 8 view keeps an element whose ARIA attributes the kernel
    could set. A screen reader that announces only changes inside a live region already on the
    page may stay silent; the text is still the line under the figure and the image's alt.
    """
    return (f'<p class="{SUMMARY_CLASS}" role="status" aria-live="polite" aria-atomic="true">'
            f"{html.escape(text)}</p>")


def frame_summary(output: dict, shown: PNG) -> str:
    """What the status line says after a redraw: the shown frame's alt text, or, when the frame
    function raised (``output`` is the traceback), that the figure was not redrawn and why."""
    if output["output_type"] == "display_data":
        return shown.alt
    error = output["text"].strip().splitlines()[-1]
    return f"Not redrawn for these values ({error}); the error is shown above."


def with_first_frame(bundle: dict, first: PNG) -> tuple[dict, dict]:
    """A widget's display bundle with its first frame as ``image/png`` and that frame's alt
    text, for a front end without widget state (nbconvert, a notebook viewer)."""
    return {**bundle, "image/png": first.data}, {"image/png": {"alt": first.alt}}


def frame_output(frame: Callable[..., Figure], values: dict, last: PNG | None,
                 ) -> tuple[tuple[dict], PNG | None]:
    """The output widget's ``outputs`` for ``frame(**values)``, and the frame shown.

    Parameters
    ----------
    frame : callable
        Returns the Figure for the control values.
    values : dict
        The controls' values, by parameter name.
    last : PNG or None
        The frame shown before (None for the first).

    Returns
    -------
    outputs : tuple of one dict
        A ``display_data`` output with the frame's PNG (base64, as the display protocol sends
        images) and its alt text, and the same as ``text/html``: an ``<img>`` with that alt.
        If ``frame`` raises on a later draw, a ``stderr`` stream with the traceback instead, so
        that the widget shows why it did not redraw; a first draw that raises raises, so that
        the cell fails.
    shown : PNG or None
        The new frame, or ``last`` when ``frame`` raised.
    """
    try:
        image = PNG(frame(**values))
    except Exception:
        if last is None:
            raise
        return ({"output_type": "stream", "name": "stderr", "text": traceback.format_exc()},), last
    encoded = base64.b64encode(image.data).decode("ascii")
    # JupyterLab shows text/html before image/png, and only the <img> of HTML has an alt text.
    data = {"image/png": encoded, "text/html": f'<img src="data:image/png;base64,{encoded}" '
                                               f'alt="{html.escape(image.alt)}">'}
    metadata = {"image/png": {"alt": image.alt}}
    return ({"output_type": "display_data", "data": data, "metadata": metadata},), image


describe_shown_figures()
