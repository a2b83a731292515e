"""``grader/`` shows its stages: every module sits in the subpackage of its stage, and imports point
from a later stage to an earlier one (README, "Repository layout"). The few that point the other
way are listed here, so a new one is a decision, not an accident."""

import ast
from pathlib import Path

GRADER = Path(__file__).resolve().parents[1] / "grader"
# The order a submission travels: a stage may import the stages before it (and itself).
STAGES = ("core", "kernel", "pipeline", "authoring", "intake", "dispatch", "review", "handback",
          "hub")
TOP_LEVEL = {"__init__.py", "__main__.py", "cli.py", "nbgrader_config.py"}
# module -> the later stage it imports, and why it was left so when the modules moved
BACKWARD = {
    ("pipeline/hand_grades.py", "handback"): "writes the regrade note between pending's markers",
    ("dispatch/autograde.py", "review"): "writes its run record where the report reads it",
    ("review/report.py", "handback"): "lists who waits for a hand grade, as feedback does",
}


def grader_imports(path: Path) -> set[str]:
    """The stages (``grader.<stage>``) that the module at ``path`` imports."""
    stages = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                 else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        for name in names:
            parts = name.split(".")
            if parts[0] == "grader" and len(parts) > 1 and parts[1] in STAGES:
                stages.add(parts[1])
    return stages


def test_only_the_command_and_the_configuration_stay_at_the_top():
    assert {p.name for p in GRADER.glob("*.py")} == TOP_LEVEL
    assert {p.name for p in GRADER.iterdir() if (p / "__init__.py").exists()} == set(STAGES)


def test_every_stage_says_what_it_owns_and_what_it_trusts():
    for stage in STAGES:
        doc = ast.get_docstring(ast.parse((GRADER / stage / "__init__.py").read_text())) or ""
        assert "Owns:" in doc and "Trusts:" in doc, stage


def test_imports_point_to_earlier_stages_except_the_listed_ones():
    backward = set()
    for path in GRADER.glob("*/*.py"):
        stage = path.parent.name
        if stage not in STAGES:
            continue
        for target in grader_imports(path):
            if STAGES.index(target) > STAGES.index(stage):
                backward.add((str(path.relative_to(GRADER)), target))
    assert backward == set(BACKWARD)
