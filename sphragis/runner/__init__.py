"""The SQL models runner: a small dbt-style engine over DuckDB, with state-based rebuilds.

One module per job:

* :mod:`.load` — **models** are Jinja-templated ``.sql`` files under ``models/`` (one table per
  file, named after the file stem) naming their inputs with ``{{ ref('model_or_seed') }}`` and
  ``{{ source('raw', 'raw_table') }}`` (the raw tables are documented in ``_sources.yml``);
  **schema files** ``models/**/*.yml`` document models and columns and declare data tests under
  ``data_tests:`` (dbt ≥ 1.8; ``tests:`` is accepted as an alias) and unit tests under
  ``unit_tests:``. ``{{ config(materialized='view') }}`` makes a view; ``{{ var('x') }}`` reads a
  build variable.
* :mod:`.render` — every ``sql/macros/*.sql`` is loaded once and its macros become Jinja globals,
  so a template error names the model file and its own line.
* :mod:`.project` — the models, seeds and declarations, and the dependency graph from the rendered
  ``ref()``/``source()`` calls, in ``graphlib`` topological order (ties broken by name);
  :mod:`.selection` — dbt-style selectors (:func:`select_models`): ``model``, ``+model``,
  ``model+``, ``+model+``, ``state:modified[+]``.
* :mod:`.seeds` — every ``sql/seeds/*.csv`` is a table named after its stem, VARCHAR columns
  unless its schema entry types them (dbt's seed config ``config: {column_types: {...}}``).
* :mod:`.datatests` — ``unique``, ``not_null``, ``accepted_values: {values: [...]}``,
  ``relationships: {to: ref('x'), field: y}``, model-level ``unique_combination: [cols]`` and
  ``expression: <sql>``; and **SQL tests** ``sql/tests/*.sql`` (queries that must return no rows).
  :func:`check` runs one test. :class:`ModelTestFailure` names model, file, test and rows.
* :mod:`.unittests` — dbt-style unit tests (``given`` rows for the model's inputs, ``expect`` rows).
* :mod:`.plan` — **fingerprints and reuse**: a model's fingerprint is the sha256 of the runner
  version, its materialization, its rendered SQL (holding every ``var()`` it reads) and the
  fingerprints of its inputs: models, seeds (sha256 of the CSV bytes and column types) and raw
  tables (given by the build). A model whose fingerprint equals the warehouse manifest's is reused;
  a test is skipped when it passed before with the same SQL on the same fingerprints.
  :func:`plan` makes these decisions without touching the warehouse.
* :mod:`.cutoff` — **early cutoff**: a table with dependents rebuilt over its previous version
  (not with ``full``) is compared with it (:func:`content_of`); when equal, it keeps its previous
  *output fingerprint*, which is what its dependents read, so they are reused (as in Shake or
  Bazel). Views are not compared (reading one runs its whole query).
* :mod:`.scheduler` — :func:`execute`: like ``dbt build --threads``, models and tests run
  :func:`default_workers` at a time on their own cursors; a model starts once what it reads is
  built and its tests passed, so a failing ``int_*`` test stops the build before the marts. The
  one executor of tests (:func:`run_tests` runs tests alone through it). A run drops the old
  manifest before it changes anything, so a run that fails midway leaves no manifest describing
  tables it replaced.
* :mod:`.manifest` — models, seeds, sources, tests, edges and fingerprints, kept in the warehouse
  (table ``build_manifest``) and written beside it by the build (README "Manifest").

:class:`Options` is the one set of a run's options (:func:`plan`, :func:`execute`, :func:`run`
take it, or its fields by name).
"""

from __future__ import annotations

from .base import (DEFAULT_VARS, MANIFEST_TABLE, MANIFEST_VERSION, MAX_WORKERS, RUNNER_VERSION, SQL_TESTS_DIR,
                   CompiledTest, Failure, ModelError, ModelTestFailure, Options, layer)
from .cutoff import content_of
from .datatests import check, data_tests, sql_tests
from .selection import select_models
from .manifest import manifest, read_manifest, relations
from .manifest import store as store_manifest
from .plan import Decision, Plan, plan
from .load import load_project
from .project import REF, Model, Project, test_args, tests_of
from .render import project_vars, render
from .scheduler import RunReport, default_workers, execute, run, run_tests
from .seeds import load_seeds, seed_column_types, seed_fingerprint
from .unittests import unit_tests

__all__ = [
    "DEFAULT_VARS", "MANIFEST_TABLE", "MANIFEST_VERSION", "MAX_WORKERS", "RUNNER_VERSION", "SQL_TESTS_DIR",
    "CompiledTest", "Decision", "Failure", "Model", "ModelError", "ModelTestFailure", "Options", "Plan", "Project",
    "REF", "RunReport", "check", "content_of", "data_tests", "default_workers", "execute", "layer", "load_project",
    "load_seeds", "manifest", "plan", "project_vars", "read_manifest", "relations", "render", "run", "run_tests",
    "seed_column_types", "seed_fingerprint", "select_models", "sql_tests", "store_manifest", "test_args", "tests_of",
    "unit_tests",
]
