"""The ways to install the course agree, and mllib stays a numpy-only library.

environment.yml (conda) and pyproject.toml (pip) must list the same packages with the same
version specifiers; requirements.lock (what `make lab` and `make test` install) must pin every
one of them at a version both allow, for the Python that environment.yml names. mllib may import
only numpy and the standard library, except for the figure and widget helpers
(mllib/plotting.py, mllib/demos/), which may also use matplotlib and ipywidgets.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.markers import Marker
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parent.parent

# PEP 508 name, then the version specifier (conda and pip write ">=1.2,<2" the same way).
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*?)\s*$")


def normalize(name: str) -> str:
    """PEP 503 normalisation: case and runs of -, _ and . do not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


def split_requirement(text: str, source: str) -> tuple[str, str]:
    """("numpy", ">=1.26") from "numpy >= 1.26"; clauses are sorted so their order is moot."""
    assert ";" not in text, f"{source}: environment markers can't be mirrored in conda: {text!r}"
    match = REQUIREMENT.match(text)
    assert match, f"{source}: can't parse requirement {text!r}"
    name, _extras, spec = match.groups()
    clauses = sorted(clause.replace(" ", "") for clause in spec.split(",") if clause.strip())
    return normalize(name), ",".join(clauses)


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def environment() -> dict:
    return yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))


def pip_packages() -> dict[str, str]:
    project = pyproject()["project"]
    requirements = list(project["dependencies"])
    requirements += project.get("optional-dependencies", {}).get("dev", [])
    packages: dict[str, str] = {}
    for text in requirements:
        name, spec = split_requirement(text, "pyproject.toml")
        assert name not in packages, f"pyproject.toml lists {name} twice"
        packages[name] = spec
    return packages


def conda_entries() -> tuple[dict[str, str], list]:
    """(packages other than python and pip, the `- pip:` sub-list) from environment.yml."""
    packages: dict[str, str] = {}
    pip_list: list = []
    for entry in environment()["dependencies"]:
        if isinstance(entry, dict):
            assert set(entry) == {"pip"}, f"environment.yml: unexpected entry {entry!r}"
            pip_list = entry["pip"]
            continue
        name, spec = split_requirement(str(entry), "environment.yml")
        assert name not in packages, f"environment.yml lists {name} twice"
        packages[name] = spec
    return packages, pip_list


def describe_differences(pip: dict[str, str], conda: dict[str, str]) -> str:
    lines = []
    for name in sorted(pip.keys() - conda.keys()):
        lines.append(f"  only in pyproject.toml:  {name}{pip[name]}")
    for name in sorted(conda.keys() - pip.keys()):
        lines.append(f"  only in environment.yml: {name}{conda[name]}")
    for name in sorted(pip.keys() & conda.keys()):
        if pip[name] != conda[name]:
            lines.append(
                f"  {name}: pyproject.toml says {pip[name] or '(any)'!r}, "
                f"environment.yml says {conda[name] or '(any)'!r}"
            )
    return "\n".join(lines)


def test_environment_yml_and_pyproject_list_the_same_packages_and_versions():
    conda, _ = conda_entries()
    conda.pop("pip", None)  # the installer itself, needed for the `- pip:` sub-list
    conda.pop("python", None)  # checked against requires-python below
    pip = pip_packages()
    differences = describe_differences(pip, conda)
    assert not differences, (
        "environment.yml and pyproject.toml disagree (runtime deps + the dev extra):\n"
        + differences
    )


def test_python_version_agrees_with_requires_python():
    conda, _ = conda_entries()
    assert "python" in conda, "environment.yml must pin python"
    conda_python = re.fullmatch(r"(?:=|==|>=)?(\d+\.\d+)(?:\.\*)?", conda["python"])
    assert conda_python, f"environment.yml: can't read python spec {conda['python']!r}"
    requires = pyproject()["project"]["requires-python"].replace(" ", "")
    pip_python = re.fullmatch(r">=(\d+\.\d+)", requires)
    assert pip_python, f"pyproject.toml: expected requires-python '>=X.Y', got {requires!r}"
    assert conda_python.group(1) == pip_python.group(1), (
        f"environment.yml has python {conda['python']!r} but pyproject.toml requires-python is "
        f"{requires!r}: the conda python should be the oldest version pip allows"
    )


def test_environment_yml_installs_the_project_with_pip_from_conda_forge_only():
    env = environment()
    assert env["channels"] == ["conda-forge"], f"channels must be conda-forge only: {env}"
    conda, pip_list = conda_entries()
    assert "pip" in conda, "environment.yml needs `- pip` to run its `- pip:` sub-list"
    assert pip_list == ["-e ."], f"the `- pip:` sub-list must install the project: {pip_list!r}"


def test_difference_report_names_each_problem():
    # The failure message of the agreement test, on a made-up disagreement.
    report = describe_differences(
        {"numpy": ">=1.26", "pytest": ">=8", "ruff": ">=0.6"},
        {"numpy": ">=1.25", "pytest": ">=8", "scipy": ""},
    )
    assert report.splitlines() == [
        "  only in pyproject.toml:  ruff>=0.6",
        "  only in environment.yml: scipy",
        "  numpy: pyproject.toml says '>=1.26', environment.yml says '>=1.25'",
    ]


def test_requirements_are_normalised_before_comparison():
    assert split_requirement("Py_YAML >= 6", "x") == ("py-yaml", ">=6")
    assert split_requirement("jupyterlab<5, >=4.2", "x") == split_requirement(
        "jupyterlab>=4.2,<5", "x"
    )
    assert split_requirement("nbgrader[docs]>=0.9.6,<0.10", "x") == ("nbgrader", "<0.10,>=0.9.6")


# --- requirements.lock --------------------------------------------------------------------

LOCK = ROOT / "requirements.lock"
# "name==version" with an optional "; marker" (uv's --universal output, e.g. numpy for 3.12+).
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)\s*(?:;\s*(.+))?$")


def locked_pins(text: str) -> dict[str, list[tuple[str, str | None]]]:
    """{name: [(version, marker or None), ...]} from a lock file's text; fails on a non-pin."""
    pins: dict[str, list[tuple[str, str | None]]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        match = PIN.match(line)
        assert match, f"requirements.lock:{number}: not an exact pin 'name==version': {raw!r}"
        name, version, marker = match.groups()
        pins.setdefault(normalize(name), []).append((version, marker))
    return pins


def conda_python() -> str:
    conda, _ = conda_entries()
    return re.fullmatch(r"(?:=|==|>=)?(\d+\.\d+)(?:\.\*)?", conda["python"]).group(1)


def versions_for(pins: list[tuple[str, str | None]], python: str) -> list[str]:
    """The locked versions that pip installs on Linux x86-64 with this Python (X.Y)."""
    env = {"python_version": python, "python_full_version": f"{python}.99",
           "sys_platform": "linux", "platform_system": "Linux", "os_name": "posix",
           "platform_machine": "x86_64", "implementation_name": "cpython",
           "platform_python_implementation": "CPython"}  # fmt: skip
    return [v for v, marker in pins if marker is None or Marker(marker).evaluate(env)]


def lock_problems(pins, pip: dict[str, str], conda: dict[str, str], python: str) -> list[str]:
    problems = []
    for name, spec in sorted(pip.items()):
        versions = versions_for(pins.get(name, []), python)
        if len(versions) != 1:
            problems.append(f"  {name}: {len(versions)} pins for Python {python}, want 1")
            continue
        for source, allowed in (("pyproject.toml", spec), ("environment.yml", conda.get(name))):
            if allowed is None or versions[0] not in SpecifierSet(allowed):
                problems.append(f"  {name}=={versions[0]} is outside {source}'s {allowed!r}")
    return problems


def test_lock_pins_every_requirement_at_a_version_pyproject_and_environment_allow():
    # make lab / make test install requirements.lock, conda users environment.yml: if a
    # requirement is added or narrowed in pyproject.toml and environment.yml but the lock is not
    # regenerated (`make lock`), students and CI would get versions the project does not allow.
    conda, _ = conda_entries()
    pins = locked_pins(LOCK.read_text(encoding="utf-8"))
    python = conda_python()
    problems = lock_problems(pins, pip_packages(), conda, python)
    assert not problems, (
        "requirements.lock disagrees with pyproject.toml / environment.yml; run `make lock`:\n"
        + "\n".join(problems)
    )
    assert "numpy" in pins and len(pins) > len(pip_packages())  # transitive pins too


def test_lock_was_resolved_for_the_python_of_environment_yml():
    header = LOCK.read_text(encoding="utf-8").splitlines()[:3]
    command = next((line for line in header if "uv pip compile" in line), "")
    assert f"--python-version {conda_python()}" in command, (
        f"requirements.lock was not compiled for Python {conda_python()} (environment.yml): "
        f"{header}"
    )
    assert "--universal" in command, "compile with --universal so the lock fits every platform"


def test_make_installs_the_lock_and_the_project_without_resolving_again():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "LOCK   := requirements.lock" in makefile
    assert "$(STAMP): pyproject.toml $(LOCK)" in makefile  # a new lock reinstalls
    assert "pip install --quiet --no-deps -r $(LOCK)" in makefile
    assert "pip install --quiet --no-deps -e ." in makefile



def test_importing_nbformat_compiles_no_grammar():
    # The lock leaves out the Makefile's SLOW_IMPORTS and `make` uninstalls them from an older
    # venv: with rfc3987-syntax present, `import jsonschema` (under nbformat, so under every
    # nbgrader and `course` run) builds an Earley parser, 2 s of CPU per process.
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "--no-emit-package $(SLOW_IMPORTS)" in makefile
    assert "pip uninstall --quiet --yes $(SLOW_IMPORTS)" in makefile
    assert "rfc3987-syntax" not in locked_pins(LOCK.read_text(encoding="utf-8"))
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, nbformat; print(sorted(m for m in sys.modules "
         "if m.split('.')[0] in ('rfc3987_syntax', 'lark')))"],
        capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]", f"importing nbformat loaded {loaded}"

def test_lock_check_names_each_problem():
    pins = locked_pins(
        "# header\n"
        "numpy==1.25.0\n"
        "    # via pyproject\n"
        "scipy==1.11.0 ; python_full_version < '3.12'\n"
        "scipy==1.14.0 ; python_full_version >= '3.12'\n"
        "appnope==0.1 ; sys_platform == 'darwin'\n"
    )
    assert pins["scipy"] == [("1.11.0", "python_full_version < '3.12'"),
                             ("1.14.0", "python_full_version >= '3.12'")]  # fmt: skip
    assert versions_for(pins["scipy"], "3.11") == ["1.11.0"]
    assert versions_for(pins["scipy"], "3.12") == ["1.14.0"]
    assert versions_for(pins["appnope"], "3.11") == []
    pip = {"numpy": ">=1.26", "scipy": ">=1.10", "ruff": ">=0.6"}
    conda = {"numpy": ">=1.26", "scipy": ">=1.12", "ruff": ">=0.6"}
    assert lock_problems(pins, pip, conda, "3.11") == [
        "  numpy==1.25.0 is outside pyproject.toml's '>=1.26'",
        "  numpy==1.25.0 is outside environment.yml's '>=1.26'",
        "  ruff: 0 pins for Python 3.11, want 1",
        "  scipy==1.11.0 is outside environment.yml's '>=1.12'",
    ]
    try:
        locked_pins("numpy>=1.26\n")
    except AssertionError as error:
        assert "not an exact pin" in str(error)
    else:
        raise AssertionError("a range in the lock must be reported")


# --- mllib's imports ------------------------------------------------------------------------

MLLIB = ROOT / "mllib"
ALLOWED_EVERYWHERE = {"numpy", "mllib", "__future__"} | set(sys.stdlib_module_names)
# Only the figure and widget helpers may draw, make widgets or speak the display protocol.
ALLOWED_IN_HELPERS = {"matplotlib", "contourpy", "ipywidgets", "IPython"}
NEVER = {"sklearn", "scipy", "pgmpy"}
# The one exception to "numpy only" (issue #15): lecture 15's Dask executor. Only
# mllib/parallel.py may import Dask, and only inside a function (lazily), so that
# `import mllib.parallel` and its in-process executor work where Dask is not installed.
LAZY_IN_PARALLEL = {"dask", "distributed"}


def is_helper(path: Path) -> bool:
    relative = path.relative_to(MLLIB)
    return relative.parts[0] == "demos" or relative == Path("plotting.py")


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, top-level package) for every absolute import in the file, nested ones included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def test_mllib_imports_only_numpy_and_the_standard_library():
    files = sorted(MLLIB.rglob("*.py"))
    assert MLLIB / "perceptron.py" in files
    problems = []
    for path in files:
        allowed = ALLOWED_EVERYWHERE | (ALLOWED_IN_HELPERS if is_helper(path) else set())
        allowed |= LAZY_IN_PARALLEL if path == MLLIB / "parallel.py" else set()
        for line, module in imported_modules(path):
            where = f"{path.relative_to(ROOT)}:{line}: import {module}"
            if module in NEVER:
                problems.append(f"{where} (never allowed in mllib)")
            elif module not in allowed:
                extra = sorted(allowed - set(sys.stdlib_module_names))
                problems.append(f"{where} (here mllib allows the standard library and {extra})")
    assert not problems, "mllib imports outside its allowance:\n" + "\n".join(problems)


def module_level_imports(path: Path) -> set[str]:
    """Top-level packages imported by the module's own body (not inside a function)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_parallel_imports_dask_only_lazily():
    path = MLLIB / "parallel.py"
    assert {module for _, module in imported_modules(path)} & LAZY_IN_PARALLEL, "no Dask at all?"
    assert not module_level_imports(path) & LAZY_IN_PARALLEL, (
        "mllib/parallel.py must import Dask inside the Dask executor only"
    )


def test_import_scan_sees_nested_and_from_imports(tmp_path):
    source = tmp_path / "sample.py"
    source.write_text(
        "import os.path, numpy as np\n"
        "from sklearn.linear_model import Perceptron\n"
        "from . import sibling\n"
        "def f():\n"
        "    import scipy.stats\n",
        encoding="utf-8",
    )
    assert imported_modules(source) == [(1, "os"), (1, "numpy"), (2, "sklearn"), (5, "scipy")]


def test_helpers_are_only_demos_and_plotting():
    assert is_helper(MLLIB / "demos" / "perceptron.py")
    assert is_helper(MLLIB / "plotting.py")
    assert not is_helper(MLLIB / "perceptron.py")
    assert not is_helper(MLLIB / "grading" / "perceptron.py")


def test_a_plain_make_test_replays_the_same_property_examples():
    """Without HYPOTHESIS_PROFILE (a user's `make test`, CI alike), hypothesis is derandomized:
    every run draws the same examples; `make test-explore` sets the exploring profile."""
    import os

    from hypothesis import settings

    if os.environ.get("HYPOTHESIS_PROFILE"):
        pytest.skip("an explicit hypothesis profile was asked for")
    assert settings.default.derandomize
    assert not settings.get_profile("explore").derandomize
    assert "HYPOTHESIS_PROFILE=explore" in (ROOT / "Makefile").read_text()
