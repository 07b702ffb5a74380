# Sphragis warehouse. `make export` rebuilds the benchmark from the pinned sources;
# `make test` runs the test suite. Both create the virtual environment on first use.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SPHRAGIS := $(BIN)/sphragis

# Sources: SPHRAGIS_MIRROR if set, else ../shared/sources if it exists, else upstream git
# (`sphragis fetch --list` shows which); the Makefile does not force either.

.PHONY: help install lock deps-latest fetch build rebuild export treebank folds audit report test test-fast lint bench bench-audit clean docs docs-check dbt-vars

SHELL := /bin/bash

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

# Every dependency, with its extras and build tools, is pinned with hashes in requirements-lock.txt
# (Python 3.11-3.13, any platform: `uv pip compile --universal`), so an install is the same on any
# day (`--no-deps`: the lock is complete, markers included, so pip installs exactly its lines and
# resolves nothing); the project itself is installed on top of it with the locked build tools.
LOCK := requirements-lock.txt
UV_VERSION := 0.13.9

$(VENV)/.installed: pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --no-deps --require-hashes -r $(LOCK)
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

install: $(VENV)/.installed  ## create .venv and install the locked dependencies and the project (dev extras included)

# The lock's inputs: pyproject.toml's dependencies with the `dev` extra (which holds every other
# extra's packages) and its build-system requires. Versions already in the lock are kept; `make
# lock UPGRADE=1` (or UPGRADE="--upgrade-package lxml") moves them.
UPGRADE ?=
lock:  ## re-resolve requirements-lock.txt after a dependency change in pyproject.toml (needs network)
	$(PYTHON) -m venv .venv-lock
	.venv-lock/bin/pip install --quiet uv==$(UV_VERSION)
	$(PYTHON) -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['build-system']['requires'], sep='\n')" | \
	  .venv-lock/bin/uv pip compile pyproject.toml - --extra dev --universal --python-version 3.11 \
	  --generate-hashes --quiet $(if $(filter 1,$(UPGRADE)),--upgrade,$(UPGRADE)) -o $(LOCK)

# Not in CI: the newest releases of every dependency in a venv of their own, then the fast tests,
# so that a release that breaks the project is noticed before a user's unlocked install meets it.
deps-latest:  ## try the newest releases of every dependency (.venv-latest) with the fast tests
	$(PYTHON) -m venv .venv-latest
	.venv-latest/bin/pip install --quiet --upgrade pip
	.venv-latest/bin/pip install --quiet --upgrade -e '.[dev]'
	.venv-latest/bin/pip freeze --exclude-editable | diff <(grep -E '^[A-Za-z0-9_.-]+==' $(LOCK) | sed 's/ .*//' | sort -f) \
	  <(sort -f -) | grep '^[<>]' || true
	.venv-latest/bin/python -m pytest $(FAST_TESTS)

fetch: install  ## unpack the pinned snapshots (mirror if present, else upstream git) into SPHRAGIS_DATA
	$(SPHRAGIS) fetch

build: fetch  ## ingest every treebank and build the SQL models into SPHRAGIS_WAREHOUSE
	$(SPHRAGIS) build

rebuild: install  ## rebuild the SQL models without re-ingesting
	$(SPHRAGIS) build --models-only

export: build  ## the main job: fetch + build + write the benchmark (+ leakage report, leaderboard) to SPHRAGIS_OUT
	$(SPHRAGIS) export
	$(SPHRAGIS) audit
	@if [ -d leaderboard ]; then $(SPHRAGIS) leaderboard leaderboard; fi

# `make treebank` runs the UD validator at every level (1-5: level 2 is the gate, levels 3-5 are
# counted in manifest.json), on every core, caching each sentence's result (README, "Training
# treebank"; `make bench` times it). TREEBANK_FLAGS="--validator-level 2" runs the gate alone
# (less than half the validator's CPU);
# TREEBANK_FLAGS=--no-validator skips the validator (the two loaders still run); any other
# `sphragis export-treebank` option passes the same way (e.g. TREEBANK_FLAGS="--merged").
TREEBANK_FLAGS ?=

treebank: build  ## leakage-clean CoNLL-U training treebank + manifest (seed 001) into dist/treebank (TREEBANK_FLAGS=--no-validator skips the UD validator)
	$(SPHRAGIS) export-treebank $(TREEBANK_FLAGS)

folds: build  ## the protocol's PapyGreek and verse evaluation folds (CoNLL-U + manifest.json, seed 001) into dist/folds
	$(SPHRAGIS) folds

audit: install  ## leakage audit and text baselines over the export (SPEC §11)
	$(SPHRAGIS) audit

report: install  ## variation and leakage report (Markdown + charts) into reports/
	$(SPHRAGIS) report

dbt-vars: install  ## rewrite dbt_project.yml's vars from the project registry and the build variables (after editing either)
	$(BIN)/python -m sphragis.dbt_vars dbt_project.yml

docs: install  ## regenerate docs/*.md from seeds and models, then the data-dictionary site (docs, lineage, columns, samples, charts) into site/
	$(BIN)/python -m sphragis.workbench.pages docs
	$(SPHRAGIS) docs

# Chromium is a system package: the target says how to install it and stops, never installs it itself.
docs-check: docs  ## open site/ in headless Chromium and check every link and console (needs chromium, chromium-driver)
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  { echo "docs-check needs Chromium and ChromeDriver: on Debian or Ubuntu, sudo apt-get install chromium chromium-driver"; exit 1; }
	SPHRAGIS_DOCS_SITE=site $(BIN)/python -m pytest -q tests/test_docs_site.py

test: install  ## run the test suite (integration tests build from the mirror: SPHRAGIS_MIRROR, else ../shared/sources)
	$(BIN)/python -m pytest

# The fast lane: the unit tests on fixtures, no build of the real sources and none of the modules
# that build fixture warehouses (marker `slow`), for the edit-test loop; CI runs `make test`.
FAST_TESTS := -m "not integration and not package and not slow"
test-fast: install  ## the fast lane: unit tests without builds (under 2 minutes on 2 cores)
	$(BIN)/python -m pytest $(FAST_TESTS)

# Every .sql file: models, analyses and DDL through the Jinja templater (the sql/macros they call
# are rendered into them: a macro file alone renders to nothing), named queries with $name parameters.
lint: install  ## lint every .sql file with sqlfluff (models, sql/analyses, sql/ddl, sql/tests, sql/queries)
	$(BIN)/sqlfluff lint models sql/analyses sql/ddl sql/tests; status=$$?; \
	$(BIN)/sqlfluff lint sql/queries --templater placeholder && exit $$status

bench: install  ## full build / parse-floor ratio, peak RSS, rebuild share (SPEC §13); export, audit, treebank, make export: wall, CPU, RSS
	$(BIN)/python -m sphragis.bench

bench-audit: install  ## re-measure the audit's stopping rule (tol 0.01 against 1e-4) on the export in SPHRAGIS_OUT (minutes: twice the audit's fits)
	$(BIN)/python -m sphragis.bench_audit

clean:  ## remove the warehouse, unpacked sources, exports, setuptools' build/ and *.egg-info (stale files a wheel or an entry-point lookup would pick up)
	rm -rf warehouse.duckdb warehouse.duckdb.* data dist reports site build *.egg-info
