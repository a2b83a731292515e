"""The prose of the course's notebooks, for the tests that bind a sentence to the computation it
states."""

import json
from pathlib import Path

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"


def markdown_text(notebook: str) -> str:
    """The Markdown cells of ``solutions/<notebook>`` (e.g. ``"05_em/em_walkthrough.ipynb"``)
    joined into one string, every run of whitespace made one space, so that a test finds a
    sentence however its lines are wrapped."""
    cells = json.loads((SOLUTIONS / notebook).read_text())["cells"]
    return " ".join(" ".join("".join(c["source"]).split())
                    for c in cells if c["cell_type"] == "markdown")
