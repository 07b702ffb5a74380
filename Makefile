# Sphragis warehouse. `make export` rebuilds the benchmark from the pinned sources;
# `make test` runs the test suite. Both create the virtual environment on first use.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SPHRAGIS := $(BIN)/sphragis

# Sources: SPHRAGIS_MIRROR if set, else ../shared/sources if it exists, else upstream git
# (`sphragis fetch --list` shows which); the Makefile does not force either.

.PHONY: help install fetch build rebuild export treebank audit report test lint bench bench-audit clean docs docs-check dbt-vars

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed  ## create .venv and install the project with its dev extras

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
# treebank"): 232 CPU-s on the real files with an empty cache, 144 s wall at load 2.5 on 2 cores.
# TREEBANK_FLAGS="--validator-level 2" runs the gate alone (validator 83 CPU-s instead of 191);
# TREEBANK_FLAGS=--no-validator skips the validator (the two loaders still run); any other
# `sphragis export-treebank` option passes the same way (e.g. TREEBANK_FLAGS="--merged").
TREEBANK_FLAGS ?=

treebank: build  ## leakage-clean CoNLL-U training treebank + manifest (seed 001) into dist/treebank (TREEBANK_FLAGS=--no-validator skips the UD validator)
	$(SPHRAGIS) export-treebank $(TREEBANK_FLAGS)

audit: install  ## leakage audit and text baselines over the export (SPEC §11)
	$(SPHRAGIS) audit

report: install  ## variation and leakage report (Markdown + charts) into reports/
	$(SPHRAGIS) report

dbt-vars: install  ## rewrite dbt_project.yml's vars from the project registry and the build variables (after editing either)
	$(BIN)/python -m sphragis.dbt_vars dbt_project.yml

docs: install  ## regenerate docs/*.md from seeds and models, then the data-dictionary site (docs, lineage, columns, samples, charts) into site/
	$(BIN)/python -m sphragis.workbench.pages docs
	$(SPHRAGIS) docs

docs-check: docs  ## open site/ in headless Chromium (Debian packages) and check every link and console
	command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  (apt-get update && apt-get install -y chromium chromium-driver)
	$(BIN)/pip install --quiet -e '.[docs-check]'
	SPHRAGIS_DOCS_SITE=site $(BIN)/python -m pytest -q tests/test_docs_site.py

test: install  ## run the test suite (integration tests build from the mirror: SPHRAGIS_MIRROR, else ../shared/sources)
	$(BIN)/python -m pytest

# Every .sql file: models, analyses and DDL through the Jinja templater (the sql/macros they call
# are rendered into them: a macro file alone renders to nothing), named queries with $name parameters.
lint: install  ## lint every .sql file with sqlfluff (models, sql/analyses, sql/ddl, sql/tests, sql/queries)
	$(BIN)/sqlfluff lint models sql/analyses sql/ddl sql/tests; status=$$?; \
	$(BIN)/sqlfluff lint sql/queries --templater placeholder && exit $$status

bench: install  ## full build / parse-floor ratio, peak RSS, rebuild share (SPEC §13); export, audit, treebank, make export: wall, CPU, RSS
	$(BIN)/python -m sphragis.bench

bench-audit: install  ## re-measure the audit's stopping rule (tol 0.01 against 1e-4) on the export in SPHRAGIS_OUT (~3 min)
	$(BIN)/python -m sphragis.bench_audit

clean:  ## remove the warehouse, unpacked sources, exports and setuptools' build/ (whose stale files a wheel would pick up)
	rm -rf warehouse.duckdb warehouse.duckdb.* data dist reports site build
