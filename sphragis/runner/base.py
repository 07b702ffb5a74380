"""What every module of the runner shares: constants, errors, the run options and the records a
run passes around (:class:`Failure`, :class:`CompiledTest`)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import duckdb

from ..config import BUILD_VARS, SQL_DIR

#: The defaults of ``var()``: :data:`sphragis.config.BUILD_VARS` (their one home).
DEFAULT_VARS = BUILD_VARS
SQL_TESTS_DIR = SQL_DIR / "tests"
#: The table holding the manifest of the build that made the warehouse (one row, column ``manifest``).
MANIFEST_TABLE = "build_manifest"
MANIFEST_VERSION = 1
#: The most models and tests :func:`sphragis.runner.execute` runs at once (``default_workers``).
MAX_WORKERS = 4
#: Part of every fingerprint: the SQL engine and the Python UDFs (the bytes of ``udfs.py``, read
#: without importing it) decide what a model's SQL means.
RUNNER_VERSION = hashlib.sha256(
    f"{MANIFEST_VERSION}|duckdb {duckdb.__version__}|".encode()
    + Path(__file__).parent.parent.joinpath("udfs.py").read_bytes()).hexdigest()[:16]


class ModelError(RuntimeError):
    """A model failed to render or execute; the message names the model file (and line)."""


class Failure(NamedTuple):
    """One failed test: the model it belongs to (or the SQL test's id), the test's description
    (with the file of a SQL or unit test) and what failed (failing rows, up to five shown)."""

    model: str
    test: str
    detail: str


class ModelTestFailure(RuntimeError):
    """One or more declared data, SQL or unit tests failed; ``failures`` lists :class:`Failure`."""

    def __init__(self, failures: list[Failure]):
        self.failures = failures
        lines = [f"{len(failures)} data test(s) failed:"] + [f"  {m}: {t}: {d}" for m, t, d in failures]
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class CompiledTest:
    """A test ready to run: its query selects the failing rows (none: the test passes).

    Attributes:
        id: ``test.<model>.<description>`` (data test), ``sql_test.<file stem>`` or
            ``unit_test.<model>.<name>``; the key of the manifest's ``tests``.
        model: the model or seed it belongs to (None for a SQL test).
        description: e.g. ``not_null(form)``, ``sql test x.sql``, ``unit_test(name)``.
        sql: the query (of a unit test: the model's SQL over its given inputs and the comparison).
        depends_on: the models and seeds it reads (it runs once they are built).
        path: the file named in its failures (a SQL test's ``.sql``, a unit test's ``.yml``).
        unit: a unit test's given and expected rows (:class:`sphragis.runner.unittests.UnitTest`).
    """

    __test__ = False  # not a pytest class

    id: str
    model: str | None
    description: str
    sql: str
    depends_on: tuple[str, ...]
    path: Path | None = None
    unit: object | None = None


@dataclass(frozen=True)
class Options:
    """What a run is asked to do: the one set of options of :func:`sphragis.runner.plan`,
    :func:`sphragis.runner.execute` and :func:`sphragis.runner.run` (and of a build's models step).

    Attributes:
        variables: overrides for ``var()``.
        select: dbt-style selectors (:func:`sphragis.runner.select_models`); default every model.
        full: rebuild every (selected) model and rerun every test, whatever the fingerprints say.
        source_fingerprints: ``"raw.<table>"`` → content hash of each raw table; a model reading a
            source without one is always rebuilt.
        test: run the data, SQL and unit tests.
        previous: the manifest to compare with, when the connection is a new file (default: the
            one in it); its models are not there, so they are built, with the reason it gives.
        workers: models and tests at once (default ``default_workers()``; 1 runs them in order).
        on_model: callback ``(name, seconds, rows)`` after each model built (on the calling thread).
    """

    variables: dict | None = None
    select: list[str] | None = None
    full: bool = False
    source_fingerprints: dict[str, str] | None = None
    test: bool = True
    previous: dict | None = None
    workers: int | None = None
    on_model: Callable[[str, float, int | None], None] | None = None

    @classmethod
    def of(cls, options: Options | None = None, **overrides) -> Options:
        """``options`` (default all defaults) with ``overrides`` (field names; TypeError otherwise)."""
        return dataclasses.replace(options or cls(), **overrides)


def sha(*parts: object) -> str:
    """sha256 (hex) of ``parts`` as sorted-key JSON (the hash of every fingerprint)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def layer(name: str) -> str:
    """The dbt layer of a model from its name: ``stg_`` staging, ``int_`` intermediate, else marts."""
    return {"stg": "staging", "int": "intermediate"}.get(name.split("_", 1)[0], "marts")
