# Two commands a student or instructor needs: `make lab` and `make test`.
# Each creates .venv on first use and reinstalls when pyproject.toml changes.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# nbgrader reads grader/nbgrader_config.py from here (lab extension and CLI alike).
export JUPYTER_CONFIG_PATH := $(CURDIR)/grader
# nbgrader runs `alembic` (and other venv tools) by name when it creates a gradebook.
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: lab test lint notebooks bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=$(CURDIR) --LabApp.default_url=/lab/tree/notebooks

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .

# Regenerate the student notebooks in notebooks/ from the instructor versions in solutions/.
notebooks: $(STAMP)
	$(BIN)/course release

bench: $(STAMP)
	for script in bench/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) grader/gradebook.db grader/submitted grader/autograded grader/feedback grader/exports
