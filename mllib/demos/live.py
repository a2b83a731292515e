"""Widget figures that are built once and redrawn in place.

A widget's frame function builds its figure on the first call, marks the artists that change
with the controls ``animated``, and on later calls only updates those artists (``set_data``,
``set_offsets``, ``set_text``) and returns the same Figure. :func:`render` then draws the
figure's static part (axes, ticks, labels: most of the cost of a draw) only when it changed, and
each frame restores that background and draws the animated artists over it.

matplotlib keeps this bookkeeping for us: a change to an artist that is not animated marks the
figure stale, and a change to an animated artist does not. So a stale figure means a new
background, and the image is always what a full draw would show, except that animated artists
come on top of the static ones of their axes: anything that must stay on top of a moving artist
(points over a moving curve, a legend) is marked animated too. Two things mark a figure stale
though nothing static changed, and so cost a full draw per frame: ``ax.set_title`` (it resets
the title's placement; change ``ax.title.set_text`` instead) and an animated legend's own
drawing (use :func:`animate_legend`).
"""

from __future__ import annotations

import io
from collections.abc import Iterator

from matplotlib import image as mpl_image
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.legend import Legend

# zlib level 1: the default level takes longer than drawing a simple frame, and the image only
# travels from the kernel to the browser.
COMPRESS_LEVEL = 1


def animate(*artists: Artist) -> None:
    """Mark ``artists`` as the ones a widget updates in place (drawn over the background)."""
    for artist in artists:
        artist.set_animated(True)


def _descendants(artist: Artist) -> Iterator[Artist]:
    for child in artist.get_children():
        yield child
        yield from _descendants(child)


def animate_legend(legend: Legend) -> Legend:
    """Mark ``legend`` animated and keep its drawing from marking the figure stale; returns it.

    Drawing a legend lays out its boxes again, which marks each of them stale, and through them
    the axes and the figure: an animated legend would make every next frame draw the whole
    figure, background included. It is drawn on every frame anyway, so its parts need not
    report a change, and its texts and handles can change each frame (``set_text``,
    ``set_visible``)."""
    animate(legend)
    for child in _descendants(legend):
        child.stale_callback = None
    return legend


def animated_artists(fig: Figure) -> list[Artist]:
    """The figure's animated artists, axes by axes, each axes' in drawing (z) order."""
    return [artist for ax in fig.axes
            for artist in sorted(ax.get_children(), key=lambda a: a.get_zorder())
            if artist.get_animated()]


def render(fig: Figure) -> bytes:
    """The PNG of ``fig`` at its own size, drawn with one Agg pass at most.

    The static part is drawn again only when the figure is stale (or drawn for the first time);
    its pixels are kept on the figure, and each call restores them and draws the animated
    artists over them.
    """
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    moving = animated_artists(fig)
    background = getattr(fig, "_live_background", None)
    if fig.stale or background is None or not moving:
        canvas.draw()  # outside savefig, this draw leaves out the animated artists
        fig._live_background = canvas.copy_from_bbox(fig.bbox)
    else:
        canvas.restore_region(background)
    for artist in moving:
        fig.draw_artist(artist)
    buffer = io.BytesIO()
    # matplotlib's own PNG writer (mllib imports no imaging library of its own).
    mpl_image.imsave(buffer, canvas.buffer_rgba(), format="png",
                     pil_kwargs={"compress_level": COMPRESS_LEVEL})
    return buffer.getvalue()


def set_view(ax, xlim: tuple[float, float], ylim: tuple[float, float]) -> None:
    """Set ``ax``'s limits only where they change, so an unchanged view keeps its background."""
    if tuple(ax.get_xlim()) != tuple(xlim):
        ax.set_xlim(*xlim)
    if tuple(ax.get_ylim()) != tuple(ylim):
        ax.set_ylim(*ylim)
