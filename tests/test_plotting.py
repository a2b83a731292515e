"""The shared figure conventions: alt texts that reach every place a figure is shown, and a
palette that stays legible for readers with a colour-vision deficiency."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.pylabtools import select_figure_formats
from matplotlib.colors import to_rgb

from mllib import plotting
from mllib.demos import PNG, describe_shown_figures, frame_output


def described_figure(text: str = "3 points; the line y = 2x"):
    fig, (ax,) = plotting.figure()
    ax.plot([0, 1, 2], [0, 2, 4])
    return plotting.describe(fig, text)


def test_describe_attaches_the_text_and_rejects_an_empty_one() -> None:
    fig = described_figure("3 points;\n  the line y = 2x")
    assert plotting.described(fig) and plotting.alt_text(fig) == "3 points; the line y = 2x"
    for bad in ("", "   ", None):
        with pytest.raises(ValueError, match="alt text"):
            plotting.describe(fig, bad)


def test_an_undescribed_figure_falls_back_to_its_titles_and_labels() -> None:
    fig, (ax,) = plotting.figure()
    ax.set_title("mistakes $k$ per epoch")
    ax.set_xlabel("epoch")
    assert not plotting.described(fig)
    assert plotting.alt_text(fig) == "Figure: mistakes k per epoch; axes: epoch"


def test_a_widget_frame_carries_its_alt_text_in_the_output_metadata() -> None:
    image = PNG(described_figure())
    data, metadata = image._repr_png_()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and metadata == {"alt": "3 points; the line y = 2x"}
    (output,), shown = frame_output(lambda n: described_figure(f"{n} points"), {"n": 7}, None)
    assert output["metadata"] == {"image/png": {"alt": "7 points"}} and shown.alt == "7 points"


def test_a_figure_shown_as_a_cell_result_carries_its_alt_text() -> None:
    shell = InteractiveShell.instance()
    try:
        select_figure_formats(shell, {"png"})  # what %matplotlib inline registers
        describe_shown_figures(shell)
        data, metadata = shell.display_formatter.format(described_figure("two lines"))
        assert data["image/png"] and metadata["image/png"] == {"alt": "two lines"}
        select_figure_formats(shell, {"png"})  # registered again: still described
        _, metadata = shell.display_formatter.format(described_figure("one line"))
        assert metadata["image/png"] == {"alt": "one line"}
    finally:
        InteractiveShell.clear_instance()


def relative_luminance(colour: str) -> float:
    """WCAG 2.1's relative luminance of an sRGB colour."""
    rgb = np.array(to_rgb(colour))
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ [0.2126, 0.7152, 0.0722])


@pytest.mark.parametrize("colour", plotting.PALETTE)
def test_every_palette_colour_has_3_to_1_contrast_on_white(colour: str) -> None:
    """WCAG 1.4.11: graphical objects that carry meaning need 3:1 against their background."""
    assert (1.0 + 0.05) / (relative_luminance(colour) + 0.05) >= 3.0


# Machado, Oliveira & Fernandes (2009), full-severity simulation matrices on linear sRGB.
DEFICIENCIES = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
}


def lab(linear_rgb: np.ndarray) -> np.ndarray:
    """CIE L*a*b* (D65) of a linear sRGB colour."""
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ np.clip(linear_rgb, 0, 1)
    t = xyz / [0.95047, 1.0, 1.08883]
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


@pytest.mark.parametrize("deficiency", DEFICIENCIES)
def test_the_first_four_palette_colours_stay_apart_under_colour_blindness(deficiency) -> None:
    """Classes (at most four in one figure) stay distinguishable: every pair of the first four
    colours differs by at least 10 ΔE*ab under a full-severity simulation, about five times
    the just-noticeable difference; markers tell them apart as well."""
    def seen(colour: str) -> np.ndarray:
        rgb = np.array(to_rgb(colour))
        linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        return lab(np.array(DEFICIENCIES[deficiency]) @ linear)

    for a, b in itertools.combinations(plotting.PALETTE[:4], 2):
        assert np.linalg.norm(seen(a) - seen(b)) >= 10, (deficiency, a, b)


def test_figures_cycle_through_the_palette_and_markers_are_distinct() -> None:
    _, (ax,) = plotting.figure()
    lines = [ax.plot([0, 1], [i, i])[0] for i in range(3)]
    assert [line.get_color() for line in lines] == list(plotting.PALETTE[:3])
    assert len(set(plotting.MARKERS)) == len(plotting.MARKERS) >= 4


def test_counted_agrees_in_number():
    from mllib.plotting import counted

    assert [counted(n, "mistake") for n in (0, 1, 2)] == ["0 mistakes", "1 mistake", "2 mistakes"]
    assert counted(1, "hidden unit") == "1 hidden unit"
    assert counted(3, "vertex", "vertices") == "3 vertices"


COLOUR_WORDS = re.compile(r"\b(red|purple|magenta|vermillion|pink|orange|blue|green|olive"
                          r"|yellow|grey|gray|black|white)\b", re.IGNORECASE)


def _walkthrough_prose(number: int) -> str:
    root = Path(__file__).resolve().parents[1] / "solutions"
    (path,) = root.glob(f"{number:02d}_*/*_walkthrough.ipynb")
    cells = json.loads(path.read_text())["cells"]
    return " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def test_lectures_01_to_07_and_11_to_15_name_colours_by_the_palettes_names():
    # Issue 36's pattern: "red" for vermillion and "purple"/"red" for reddish purple did not
    # match what readers see. Grey draws things outside the palette (reference curves).
    from mllib.plotting import COLOUR_NAMES

    for number in (*range(1, 8), *range(11, 16)):
        used = {w.lower() for w in COLOUR_WORDS.findall(_walkthrough_prose(number))}
        assert used <= set(COLOUR_NAMES) | {"grey"}, (number, used - set(COLOUR_NAMES))


def test_lectures_09_and_10_name_only_the_palettes_colours():
    # Their reviews (r2): "grey walls", "white = unclassified", "grey level", "white", "dark"
    # named no palette colour; the figures now tell walls apart by width and shading by depth.
    # Lecture 09's "red, green, blue" are the values of a categorical feature, not drawn colours.
    from mllib.plotting import COLOUR_NAMES

    for number in (9, 10):
        text = _walkthrough_prose(number).replace("with red, green, blue as 0, 1,\n2, red is "
                                                  "twice as far from blue as from green", "")
        used = {w.lower() for w in COLOUR_WORDS.findall(text)}
        assert used <= set(COLOUR_NAMES), (number, used - set(COLOUR_NAMES))


def test_share_and_se_bounds_an_all_or_nothing_share_exactly_and_rejects_nonsense():
    from scipy import stats
    assert plotting.share_and_se(0.25, 100) == "0.25 ± 0.04"  # √(0.25·0.75/100) = 0.0433
    upper = stats.beta.ppf(0.95, 1, 2000)  # Clopper-Pearson one-sided bound at 0 of 2000
    assert plotting.share_and_se(0.0, 2000, ".2%") == f"0.00% (≤ {upper:.2%}, 95 %)"
    assert plotting.share_and_se(1.0, 100) == f"1.00 (≥ {stats.beta.ppf(0.05, 100, 1):.2f}, 95 %)"
    for share, n in ((0.5, 0), (1.5, 10), (-0.1, 10)):
        with pytest.raises(ValueError, match="trial|lies in"):
            plotting.share_and_se(share, n)
