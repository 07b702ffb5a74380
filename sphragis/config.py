"""Paths and settings, read from the environment (README "Configuration").

Every path is resolved against the repository root (the folder holding ``pyproject.toml``) when
relative, so the CLI behaves the same from any working directory inside the checkout.
"""

from __future__ import annotations

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

#: SPEC §7 source priority, highest first (dedup picks the parse of the first present project).
PROJECT_PRIORITY = ["ud_perseus", "ud_proiel", "ud_ptnk", "agdt", "gorman", "pedalion", "harrington"]

#: treebank_source display names (SPEC §1) per project key.
TREEBANK_SOURCE = {
    "agdt": "AGDT 2.1",
    "ud_perseus": "UD Perseus",
    "ud_proiel": "UD PROIEL",
    "ud_ptnk": "UD PTNK",
    "gorman": "Gorman",
    "pedalion": "Pedalion",
    "harrington": "Harrington",
}

#: Seed for every stable shuffle (SPEC §8, seed 000 "Splits").
SPLIT_SEED = 776

#: Build variables of the training treebank models (int_training_candidates,
#: mart_training_treebank_exclusions, mart_training_treebank; issue 18, seed 001 "Leakage
#: controls"): the defaults the build uses and `sphragis export-treebank` starts from.
#: treebank_projects: AGDT-lineage projects written; treebank_folds: the protected UD folds
#: (folds.known_folds names); the three exclusion rules; treebank_work_folds: folds whose works are
#: excluded whole (seed 001: PROIEL is held out entirely, so Gorman's Herodotus goes; UD Perseus
#: dev/test are protected sentence by sentence only); dedup across projects (SPEC §7 key and
#: priority); authorship curation (SPEC §6, off: a parser does not need it); percentage of each
#: project's sentences drawn into `dev` by the stable hash (SPEC §8 style; 0 = no split).
TRAINING_TREEBANK_VARS: dict[str, object] = {
    "treebank_projects": ["agdt", "gorman", "pedalion", "harrington"],
    "treebank_folds": ["ud_perseus-dev", "ud_perseus-test", "ud_proiel-dev", "ud_proiel-test"],
    "treebank_exclude_perseus_sources": True,
    "treebank_exclude_fold_text": True,
    "treebank_exclude_fold_works": True,
    "treebank_work_folds": ["ud_proiel-dev", "ud_proiel-test"],
    "treebank_dedup": True,
    "treebank_curation": False,
    "treebank_dev_percent": 0,
}


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
