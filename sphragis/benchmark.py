"""The benchmark's shape: configurations, tracks, chunk sizes and splits (SPEC §8, §9; seed 000
"Configurations", "Splits").

The one home of these lists is two checked-in seeds, which the SQL models ``ref()`` and this
module reads (from the runner's seed folder, :data:`sphragis.config.SEEDS_DIR`):

* ``sql/seeds/benchmark_configs.csv``: ``config, track, chunk_target_size``, one row per
  configuration in published order (``sentence_1`` … ``source_held_out_50``, then
  ``work_held_out_1`` … ``work_held_out_50``);
* ``sql/seeds/benchmark_splits.csv``: ``split, split_order, is_evaluation``, one row per split
  (``train``, ``validation``, ``test``).

Constants (all tuples, in seed order):

* :data:`CONFIGS`: the twelve configuration names;
* :data:`TRACKS`: the track names (``main``, ``source_held_out``, ``work_held_out``);
* :data:`CHUNK_SIZES`: the distinct chunk target sizes, ascending (units per row: 1, 5, 10, 50);
* :data:`SPLITS`: every split in ``split_order``; :data:`EVAL_SPLITS` those with
  ``is_evaluation`` true.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .config import SEEDS_DIR, read_seed

__all__ = [
    "BY_NAME", "CHUNK_SIZES", "CONFIGS", "EVAL_SPLITS", "SPLITS", "TRACKS", "Config", "config_of", "configs",
]


@dataclass(frozen=True)
class Config:
    """One benchmark configuration: ``name`` (e.g. ``sentence_10``), ``track`` (``main``,
    ``source_held_out`` or ``work_held_out``) and ``chunk_target_size`` (units per row, 1 for the atomic configs)."""

    name: str
    track: str
    chunk_target_size: int


def configs(seeds_dir: Path = SEEDS_DIR) -> tuple[Config, ...]:
    """Every configuration of ``benchmark_configs.csv``, in file (published) order.

    Raises:
        ValueError: bad header or row, a ``chunk_target_size`` that is not a positive integer, or a
            duplicate configuration name (naming the file and line).
    """
    out: list[Config] = []
    for line, row in enumerate(read_seed("benchmark_configs", ("config", "track", "chunk_target_size"),
                                         seeds_dir), start=2):
        where = f"{seeds_dir / 'benchmark_configs.csv'}:{line}"
        if not row["chunk_target_size"].isdigit() or int(row["chunk_target_size"]) < 1:
            raise ValueError(f"{where}: chunk_target_size must be a positive integer, "
                             f"found {row['chunk_target_size']!r}")
        if any(c.name == row["config"] for c in out):
            raise ValueError(f"{where}: configuration {row['config']!r} listed twice")
        out.append(Config(row["config"], row["track"], int(row["chunk_target_size"])))
    return tuple(out)


def _splits(seeds_dir: Path = SEEDS_DIR) -> tuple[tuple[str, ...], tuple[str, ...]]:
    rows = read_seed("benchmark_splits", ("split", "split_order", "is_evaluation"), seeds_dir)
    for line, row in enumerate(rows, start=2):
        if row["is_evaluation"] not in ("true", "false") or not row["split_order"].isdigit():
            raise ValueError(f"{seeds_dir / 'benchmark_splits.csv'}:{line}: split_order must be an integer "
                             "and is_evaluation true or false")
    rows.sort(key=lambda r: int(r["split_order"]))
    return (tuple(r["split"] for r in rows), tuple(r["split"] for r in rows if r["is_evaluation"] == "true"))


_CONFIGS = configs()
CONFIGS: tuple[str, ...] = tuple(c.name for c in _CONFIGS)
TRACKS: tuple[str, ...] = tuple(dict.fromkeys(c.track for c in _CONFIGS))
CHUNK_SIZES: tuple[int, ...] = tuple(sorted({c.chunk_target_size for c in _CONFIGS}))
SPLITS, EVAL_SPLITS = _splits()
BY_NAME: dict[str, Config] = {c.name: c for c in _CONFIGS}


def config_of(track: str, chunk_target_size: int) -> str:
    """The configuration name of ``track`` and ``chunk_target_size`` (e.g. ``("main", 10)`` →
    ``sentence_10``).

    Raises:
        KeyError: no such configuration in ``benchmark_configs.csv``.
    """
    for c in _CONFIGS:
        if c.track == track and c.chunk_target_size == chunk_target_size:
            return c.name
    raise KeyError(f"no configuration with track {track!r} and chunk size {chunk_target_size} "
                   f"in {SEEDS_DIR / 'benchmark_configs.csv'}")
