# Two commands a student or instructor needs: `make lab` and `make test`.
# Each creates .venv on first use and reinstalls when pyproject.toml or requirements.lock
# changes. Both install the exact versions pinned in requirements.lock (`make lock` renews it).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
LOCK   := requirements.lock

# Jupyter refuses to start as root unless told to; containers usually run as root, so pass
# --allow-root there (and only there).
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)

# The suite runs on every CPU (pytest-xdist). --dist loadfile keeps each test module on one
# worker: several share one expensive module- or session-scoped fixture (one JupyterLab and
# Chromium, one graded class, every notebook executed once) that would otherwise be built once
# per worker, and the browser test writes its screenshots to one folder. (loadgroup with
# xdist_group marks would be finer, but pytest-xdist 3.8 cannot group under pytest 9: it renames
# item._nodeid, which pytest 9 no longer reads.) `make test PYTEST_ARGS=-n0` runs it serially.
# --no-loadscope-reorder keeps the collection order, in which tests/conftest.py puts the longest
# files first; --durations prints the slowest tests, to keep that list true.
PYTEST_ARGS ?= -n auto --dist loadfile --no-loadscope-reorder --durations=25

# nbgrader reads grader/nbgrader_config.py from here (lab extension and CLI alike).
export JUPYTER_CONFIG_PATH := $(CURDIR)/grader
# The formgrader's MathJax from this server, not a CDN: grader/jupyter/nbconvert/templates/formgrade.
export JUPYTER_PATH := $(CURDIR)/grader/jupyter
# nbgrader runs `alembic` (and other venv tools) by name when it creates a gradebook.
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: lab test test-explore lint lock notebooks site bench clean hub hub-env

# Everything `.[dev]` needs at the locked versions, then the course itself, neither resolved
# again (--no-deps): the lock is complete, and pip cannot pick other versions than its own or
# add what it leaves out (SLOW_IMPORTS).
$(STAMP): pyproject.toml $(LOCK)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-deps -r $(LOCK)
	$(BIN)/python -m pip uninstall --quiet --yes $(SLOW_IMPORTS) 2>/dev/null
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab $(ALLOW_ROOT) --ServerApp.root_dir=$(CURDIR) --LabApp.default_url=/lab/tree/notebooks

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The property tests with fresh random examples, ten times as many (`make test` replays the same
# ones every run). Run before a change lands; a failure it finds is a wrong claim or tolerance.
test-explore: $(STAMP)
	HYPOTHESIS_PROFILE=explore $(BIN)/python -m pytest $(PYTEST_ARGS) \
		$$(grep -l "from hypothesis import" tests/test_*.py)

# Left out of the lock (and uninstalled from a venv made before): rfc3987-syntax comes with
# jsonschema's format-nongpl extra (through jupyter-events) and compiles an Earley grammar
# whenever jsonschema is imported, 2 s of CPU in every process that imports nbformat (each
# nbgrader and `course` run, the lab, the site build; jsonschema#1428). jsonschema uses it only
# to check the "iri" formats, which no schema here has, and skips them when it is absent.
SLOW_IMPORTS := rfc3987-syntax

# Re-resolve requirements.lock from pyproject.toml after a dependency changed there (and in
# environment.yml), for Python 3.11 and later on every platform. Pins that still fit are kept;
# `make lock LOCK_ARGS=--upgrade` moves everything to the newest allowed versions. Then
# `make test` installs the new lock; commit it with the change. uv goes into .venv, not the lock.
lock:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 \
		--no-emit-package $(SLOW_IMPORTS) --quiet $(LOCK_ARGS) --output-file $(LOCK)

lint: $(STAMP)
	$(BIN)/ruff check .

# Regenerate the student notebooks in notebooks/ from the instructor versions in solutions/.
notebooks: $(STAMP)
	$(BIN)/course release

# The course as a static website in site/_build/html (site/coursesite/build.py): every
# walk-through executed with its widgets' frames precomputed, the exercises as released, the
# mllib API reference and the errata. Walk-throughs are cached under site/_build/cache until
# they, mllib or the build change. SITE_ARGS=--max-frames N draws fewer frames per widget;
# SITE_ARGS="--hub URL --hub-release GIT_URL" links each lecture page to the class hub (README).
site: $(STAMP)
	$(BIN)/python site/build.py $(SITE_ARGS)

# The class on JupyterHub (README, "A class on JupyterHub"; hub/jupyterhub_config.py), as root.
# Every account's server runs HUB_ENV, a venv of the lock made from a Python that every account
# can run (a Python under /root, as pyenv's, is not), with the course installed into it (not
# editable: the accounts need not read this checkout). The proxy comes from npm, at the
# versions of hub/package-lock.json. JupyterLab there never asks to fetch the Jupyter news
# (hub/lab-overrides.json): a class's servers reach no other host. The exchange is nbgrader's folder, writable by everyone
# as nbgrader requires; the grader account owns the course's grading state. The formgrader
# serves HUB_COURSE, this checkout unless told another course folder (tests/test_hub.py starts
# the hub with `make hub` on a copy). `make hub` runs in the foreground: SIGTERM to the hub
# (jupyterhub.pid in hub/var, or in COURSE_HUB_STATE) stops it, and make, with status 0; the
# servers keep running.
HUB_ENV      ?= /opt/ml-course/venv
HUB_COURSE   ?= $(CURDIR)
HUB_PYTHON   ?= /usr/bin/python3.11
EXCHANGE     ?= /usr/local/share/nbgrader/exchange
HUB_STAMP    := $(HUB_ENV)/.installed
PROXY        := hub/node_modules/.bin/configurable-http-proxy

$(HUB_STAMP): pyproject.toml $(LOCK)
	test -x $(HUB_ENV)/bin/python || $(HUB_PYTHON) -m venv $(HUB_ENV)
	$(HUB_ENV)/bin/python -m pip install --quiet --no-deps -r $(LOCK)
	$(HUB_ENV)/bin/python -m pip uninstall --quiet --yes $(SLOW_IMPORTS) 2>/dev/null
	touch $(HUB_STAMP)

$(PROXY): hub/package.json hub/package-lock.json
	npm ci --prefix hub --no-audit --no-fund --loglevel=error
	touch $(PROXY)

hub-env: $(HUB_STAMP) $(PROXY)
	$(HUB_ENV)/bin/python -m pip install --quiet --no-deps --force-reinstall --no-build-isolation .
	rm -rf $(HUB_ENV)/etc/course-student && cp -r hub/student $(HUB_ENV)/etc/course-student
	chmod -R a+rX $(HUB_ENV)/etc/course-student
	mkdir -p $(HUB_ENV)/share/jupyter/lab/settings
	cp hub/lab-overrides.json $(HUB_ENV)/share/jupyter/lab/settings/overrides.json

hub: $(STAMP) hub-env
	mkdir -p $(EXCHANGE) hub/var && chmod 0777 $(EXCHANGE)
	$(BIN)/python -c "from grader.hub.roster import ensure_grader_account as e; from pathlib import Path; e(Path('/home'))"
	cd $(HUB_COURSE) && chown -R grader-ml-course grader solutions notebooks
	cd $(HUB_COURSE) && chmod -R go-rwx grader solutions
	COURSE_HUB_COURSE=$(HUB_COURSE) COURSE_EXCHANGE=$(EXCHANGE) COURSE_HUB_ENV=$(HUB_ENV) \
	  $(HUB_ENV)/bin/jupyterhub -f hub/jupyterhub_config.py

bench: $(STAMP)
	for script in bench/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) site/_build grader/gradebook.db grader/submitted grader/autograded grader/feedback grader/exports grader/exchange
