"""What the widget tests read back from a drawn matplotlib figure."""


def labelled_ticks(ax, which: str) -> list[str]:
    """The non-empty tick labels drawn inside the axis's view limits."""
    ax.figure.canvas.draw()
    axis, (low, high) = (ax.yaxis, ax.get_ylim()) if which == "y" else (ax.xaxis, ax.get_xlim())
    return [tick.get_text() for tick, value in zip(axis.get_ticklabels(), axis.get_ticklocs(),
                                                   strict=True)
            if tick.get_text() and min(low, high) <= value <= max(low, high)]


def drawn(fig) -> list:
    """What each axes of ``fig`` draws, as plain values: its limits, title and texts, and the
    data of its lines, collections (offsets and paths) and patches, in drawing order."""
    import numpy as np

    def data(artist):
        if hasattr(artist, "get_xydata"):
            return np.asarray(artist.get_xydata()).tolist()
        if hasattr(artist, "get_offsets"):
            paths = [p.vertices.tolist() for p in artist.get_paths()]
            return [np.asarray(artist.get_offsets()).tolist(), paths]
        if hasattr(artist, "get_text"):
            return artist.get_text()
        if hasattr(artist, "get_path"):
            return artist.get_transform().transform(artist.get_path().vertices).tolist()
        return None

    return [[ax.get_xlim(), ax.get_ylim(), ax.get_title(),
             [(type(a).__name__, a.get_visible(), data(a))
              for a in [*ax.lines, *ax.collections, *ax.patches, *ax.texts]]]
            for ax in fig.axes]


def png_pixels(fig):
    """The pixels of the PNG a widget shows for ``fig``."""
    import io

    import numpy as np
    from PIL import Image

    from mllib.demos import png

    return np.asarray(Image.open(io.BytesIO(png(fig))).convert("RGB"))


def assert_redrawn_in_place_like_a_fresh_build(view_cache, frame, others) -> None:
    """The same data, alt text and pixels, whether ``frame()``'s figure was just built (after
    ``view_cache.cache_clear()``) or redrawn in place after each of ``others`` (frames at
    other control values), and the same Figure."""
    from mllib.plotting import alt_text

    view_cache.cache_clear()
    fresh = frame()
    # Drawn first: a patch's drawn() is in display coordinates, which the first draw settles
    # (the axes shrink to their equal aspect then).
    fresh_pixels, fresh_drawn, fresh_alt = png_pixels(fresh), drawn(fresh), alt_text(fresh)
    for other in others:
        png_pixels(other())
    again = frame()
    assert again is fresh
    assert repr(drawn(again)) == repr(fresh_drawn)  # repr: exact, and NaN equals NaN
    assert alt_text(again) == fresh_alt
    import numpy as np

    np.testing.assert_array_equal(png_pixels(again), fresh_pixels)


def smallest_text_points(fig) -> float:
    """The size, in points, of the smallest text ``fig`` draws (its titles, labels, tick labels
    and annotations that show something), once drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    FigureCanvasAgg(fig).draw()  # the tick labels get their text when drawn
    return min(t.get_fontsize() for t in fig.findobj(Text)
               if t.get_visible() and t.get_text().strip())
