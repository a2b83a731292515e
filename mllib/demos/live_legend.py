"""Legends that a widget redraws in place (a companion to :mod:`mllib.demos.live`).

Drawing a legend lays out its boxes again, which marks each of them stale, and through them the
axes and the figure: an animated legend would make every next frame draw the whole figure (the
static background included), however little changed. An animated legend is drawn on every
frame anyway, so its parts need not report a change.
"""

from __future__ import annotations

from collections.abc import Iterator

from matplotlib.artist import Artist
from matplotlib.legend import Legend

from mllib.demos.live import animate


def _descendants(artist: Artist) -> Iterator[Artist]:
    for child in artist.get_children():
        yield child
        yield from _descendants(child)


def animate_legend(legend: Legend) -> Legend:
    """Mark ``legend`` animated and keep its drawing from marking the figure stale; returns it.

    Its texts and handles can then change on every frame (``set_text``, ``set_visible``)."""
    animate(legend)
    for child in _descendants(legend):
        child.stale_callback = None
    return legend
