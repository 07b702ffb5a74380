# Sphragis warehouse. `make export` rebuilds the benchmark from the pinned sources;
# `make test` runs the test suite. Both create the virtual environment on first use.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SPHRAGIS := $(BIN)/sphragis

export SPHRAGIS_MIRROR ?= ../shared/sources

.PHONY: help install fetch build rebuild export audit report test lint bench clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed  ## create .venv and install the project with its dev extras

fetch: install  ## unpack the pinned snapshots (verifying sha256) into SPHRAGIS_DATA
	$(SPHRAGIS) fetch

build: fetch  ## ingest every treebank and build the SQL models into SPHRAGIS_WAREHOUSE
	$(SPHRAGIS) build

rebuild: install  ## rebuild the SQL models without re-ingesting
	$(SPHRAGIS) build --models-only

export: build  ## the main job: fetch + build + write the benchmark (+ leakage report) to SPHRAGIS_OUT
	$(SPHRAGIS) export
	$(SPHRAGIS) audit

audit: install  ## leakage audit and text baselines over the export (SPEC §11)
	$(SPHRAGIS) audit

report: install  ## variation and leakage report (Markdown + charts) into reports/
	$(SPHRAGIS) report

test: install  ## run the test suite (integration tests build from ../shared/sources)
	$(BIN)/python -m pytest

lint: install  ## lint the SQL models with sqlfluff
	$(BIN)/sqlfluff lint models sql/tests

bench: install  ## full build / parse-floor ratio, peak RSS, rebuild share (SPEC §13)
	$(BIN)/python -m sphragis.bench

clean:  ## remove the warehouse, unpacked sources and exports
	rm -rf warehouse.duckdb warehouse.duckdb.* data dist reports
