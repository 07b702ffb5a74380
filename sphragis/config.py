"""Paths and settings, read from the environment (README "Configuration").

Every path is resolved against the repository root (the folder holding ``pyproject.toml``) when
relative, so the CLI behaves the same from any working directory inside the checkout.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent
MODELS_DIR = REPO_ROOT / "models"
SQL_DIR = REPO_ROOT / "sql"
SEEDS_DIR = SQL_DIR / "seeds"
MACROS_DIR = SQL_DIR / "macros"
SOURCES_FILE = PACKAGE_DIR / "sources.json"

#: Seed for every stable shuffle (SPEC §8, seed 000 "Splits").
SPLIT_SEED = 776

#: The leakage audit's document inside an export folder (SPEC §11): written by ``sphragis audit``,
#: read by ``sphragis report``.
LEAKAGE_REPORT = Path("metadata") / "leakage_report.json"


def _path(env: str, default: str) -> Path:
    p = Path(os.environ.get(env, default)).expanduser()
    return p if p.is_absolute() else (REPO_ROOT / p)


@dataclass(frozen=True)
class Settings:
    """Resolved paths.

    Attributes:
        mirror: ``SPHRAGIS_MIRROR``, folder holding the pinned ``*.tar.xz`` archives
            (default ``../shared/sources``).
        data: ``SPHRAGIS_DATA``, where snapshots are unpacked (default ``data/sources``).
        warehouse: ``SPHRAGIS_WAREHOUSE``, the DuckDB file (default ``warehouse.duckdb``).
        out: ``SPHRAGIS_OUT``, the export directory (default ``dist/sphragis``).
    """

    mirror: Path
    data: Path
    warehouse: Path
    out: Path


def settings() -> Settings:
    """Read the ``SPHRAGIS_*`` environment variables (see :class:`Settings`)."""
    return Settings(
        mirror=_path("SPHRAGIS_MIRROR", "../shared/sources"),
        data=_path("SPHRAGIS_DATA", "data/sources"),
        warehouse=_path("SPHRAGIS_WAREHOUSE", "warehouse.duckdb"),
        out=_path("SPHRAGIS_OUT", "dist/sphragis"),
    )


@cache
def snapshots() -> tuple[dict, ...]:
    """The checked-in pin list (``sphragis/sources.json``), one dict per snapshot (SPEC §1)."""
    return tuple(json.loads(SOURCES_FILE.read_text(encoding="utf-8"))["snapshots"])


def read_seed(name: str, columns: tuple[str, ...], seeds_dir: Path = SEEDS_DIR) -> list[dict[str, str]]:
    """Rows of the checked-in seed ``<seeds_dir>/<name>.csv`` (the runner loads the same file as
    the table ``name``) as dicts of strings, in file order.

    Raises:
        ValueError: the header is not exactly ``columns``, or a row has another number of fields
            (the message names the file and line).
        OSError: the file cannot be read.
    """
    path = seeds_dir / f"{name}.csv"
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = tuple(next(reader, ()))
        if header != columns:
            raise ValueError(f"{path}:1: expected the header {','.join(columns)}, found {','.join(header)}")
        rows = []
        for row in reader:
            if len(row) != len(columns):
                raise ValueError(f"{path}:{reader.line_num}: expected {len(columns)} fields, found {len(row)}")
            rows.append(dict(zip(columns, row)))
    return rows


@cache
def projects() -> tuple[dict[str, str], ...]:
    """The seven treebank projects, highest SPEC §7 source priority first, from the seed
    ``sql/seeds/source_priority.csv`` (the one list of projects; the models ``ref()`` it): dicts
    with ``project``, ``priority``, ``treebank_source`` (SPEC §1 display name) and
    ``syntax_scheme`` (``UD`` or ``AGDT``, the native tree scheme).

    Raises:
        ValueError: a malformed seed (file and line named) or a non-integer priority.
    """
    rows = read_seed("source_priority", ("project", "priority", "treebank_source", "syntax_scheme"))
    for line, row in enumerate(rows, start=2):
        if not row["priority"].isdigit():
            raise ValueError(f"{SEEDS_DIR / 'source_priority.csv'}:{line}: priority must be an integer")
    return tuple(sorted(rows, key=lambda r: int(r["priority"])))


def __getattr__(name: str):
    # PROJECT_PRIORITY (SPEC §7 priority order of the project keys, highest first) is read from
    # the seed on first use, so importing this module reads no file.
    if name == "PROJECT_PRIORITY":
        return [p["project"] for p in projects()]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
