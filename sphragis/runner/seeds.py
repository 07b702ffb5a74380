"""Seeds: every ``sql/seeds/*.csv`` as a table named after its stem, VARCHAR columns unless the
seed's schema entry types them (dbt's seed config ``config: {column_types: {...}}``)."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from .base import ModelError, sha

if TYPE_CHECKING:
    from .project import Project


def seed_fingerprint(path: Path, column_types: dict[str, str] | None = None) -> str:
    """A seed's fingerprint: sha256 of the CSV's bytes, and of its declared column types when it
    has any (so retyping a column rebuilds what reads it)."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return sha(digest, sorted(column_types.items())) if column_types else digest


def seed_column_types(project: Project, name: str) -> dict[str, str]:
    """The ``config: {column_types: {column: type}}`` a schema file declares for seed ``name``
    (dbt's seed config), types upper-cased; ``{}`` when it declares none.

    Raises:
        ModelError: a declared column is not in the CSV's header (names the schema file).
    """
    spec = project.schema.get(name) or {}
    types = {c: str(t).upper() for c, t in ((spec.get("config") or {}).get("column_types") or {}).items()}
    unknown = sorted(set(types) - set(_csv_columns(project.seeds[name])))
    if unknown:
        raise ModelError(f"{spec['_file']}: seed {name} types columns not in {project.seeds[name]}: "
                         f"{', '.join(unknown)}")
    return types


def load_seeds(con: duckdb.DuckDBPyConnection, project: Project, names=None) -> dict[str, int]:
    """(Re)create one table per seed CSV (or per seed of ``names``), VARCHAR columns except those
    :func:`seed_column_types` declares; returns seed name → row count.

    Raises:
        ModelError: a declared column is unknown, or a value does not convert to its column's type
            (names the CSV file; DuckDB's message gives the line and value).
    """
    counts = {}
    for name, path in project.seeds.items():
        if names is not None and name not in names:
            continue
        columns = {**_csv_columns(path), **seed_column_types(project, name)}
        try:
            con.execute(
                f"create or replace table {name} as select * from read_csv(?, header=true, "
                "delim=',', quote='\"', escape='\"', auto_detect=false, columns=?)",
                [str(path), columns],
            )
        except duckdb.Error as exc:  # DuckDB's first paragraph: the CSV line, its text, the column
            first = " | ".join(str(exc).split("\n\n")[0].splitlines())
            raise ModelError(f"seed {name} ({path}) does not load with its column types: {first}") from exc
        counts[name] = con.execute(f"select count(*) from {name}").fetchall()[0][0]
    return counts


def _csv_columns(path: Path) -> dict[str, str]:
    """The CSV header's columns in order, each typed VARCHAR."""
    with path.open(encoding="utf-8", newline="") as fh:
        header = next(csv.reader(fh))
    return {h: "VARCHAR" for h in header}
