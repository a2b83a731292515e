"""What the widget tests read back from a drawn matplotlib figure."""


def labelled_ticks(ax, which: str) -> list[str]:
    """The non-empty tick labels drawn inside the axis's view limits."""
    ax.figure.canvas.draw()
    axis, (low, high) = (ax.yaxis, ax.get_ylim()) if which == "y" else (ax.xaxis, ax.get_xlim())
    return [tick.get_text() for tick, value in zip(axis.get_ticklabels(), axis.get_ticklocs(),
                                                   strict=True)
            if tick.get_text() and min(low, high) <= value <= max(low, high)]
