"""Named definitions of the evaluation toolkit (SPEC §12; seed 001).

Where two tools can compute "the same" figure differently, the choice is named here, reported in
each JSON report's ``definitions`` block and chosen on the command line. Light on purpose (no
numpy, no evaluator import): ``sphragis eval --help`` reads it.

* :data:`SCHEME_TYPES`: what makes a FEATS type of ``a`` *scheme-absent* in
  ``sphragis eval drift`` (``--scheme-types``).
* :data:`PER_TYPE`: the denominator of per-type agreement (``--per-type``).
* :data:`PROTOCOLS`: a reference protocol's choices, set at once by ``--protocol``.
* :data:`EMPTY_RESAMPLE_RULE`, :data:`MIN_CI_SENTENCES`: how ``sphragis eval score`` scores a
  bootstrap resample with an empty F1 denominator, and the fewest sentences that get a CI.
* :data:`RESAMPLES`, :data:`SEED`, :data:`CONFIDENCE`: the bootstrap's defaults
  (:mod:`.bootstrap`; ``sphragis eval score`` and ``sphragis score``).
"""

from __future__ import annotations

import csv

from .. import config

__all__ = [
    "CONFIDENCE",
    "CONVERSION_SEED",
    "EMPTY_RESAMPLE_RULE",
    "MIN_CI_SENTENCES",
    "PER_TYPE",
    "PROTOCOLS",
    "RESAMPLES",
    "SCHEME_TYPES",
    "SEED",
    "conversion_seed_rows",
]

#: The seed holding the FEATS types the AGDT -> UD conversion emits (SPEC §5 "FEATS").
CONVERSION_SEED = "feats_published_types"

#: Named definitions of the scheme (what makes a feature type of ``a`` scheme-absent).
SCHEME_TYPES: dict[str, str] = {
    "conversion": "the fixed list of FEATS types the AGDT -> UD conversion can emit (seed "
                  f"{CONVERSION_SEED}, SPEC §5); a type of a outside it is scheme-absent",
    "observed": "the FEATS types b uses anywhere in the file; a type of a that b never uses is "
                "scheme-absent",
    "list": "an explicit list of feature types given by the user; a type of a outside it is "
            "scheme-absent",
}

#: Named definitions of the per-type agreement denominator.
PER_TYPE: dict[str, str] = {
    "gold": "words where both carry the type with the same value / words where a carries it",
    "union": "words where both carry the type with the same value / words where a or b carries it",
}

#: Choices of a reference protocol, applied at once by ``sphragis eval drift --protocol``.
PROTOCOLS: dict[str, dict[str, str]] = {
    "seed001": {"scheme_types": "conversion", "per_type": "gold",
                "description": "seed 001 benchmark protocol: comparable with published pyaegean "
                               "reports"},
}

#: Fewest sentences a subset (bucket or fold) needs to get a bootstrap CI.
MIN_CI_SENTENCES = 2

#: Bootstrap defaults (:mod:`.bootstrap`): resamples, seed of ``numpy.random.default_rng`` (the
#: benchmark's seed, ``config.SPLIT_SEED``) and two-sided confidence level.
RESAMPLES = 999
SEED = config.SPLIT_SEED
CONFIDENCE = 0.95

#: How a bootstrap resample with an empty F1 denominator is scored (the CoNLL 2018 evaluator's
#: ``Score.f1``).
EMPTY_RESAMPLE_RULE = ("a resample with no gold and no system items for a metric scores 0, as "
                       "the CoNLL 2018 evaluator scores it (kept, not dropped)")


def conversion_seed_rows() -> tuple[tuple[int, str], ...]:
    """``(line, feature type)`` of every row of ``sql/seeds/feats_published_types.csv``.

    The seed (``config.SEEDS_DIR``) is the one home of the FEATS types the AGDT -> UD conversion
    emits: the ``int_token_morphology`` model restricts published FEATS to it (SPEC §5). Lines
    are 1-based file lines (the header is line 1).

    Raises:
        FileNotFoundError: the seed is missing.
        ValueError: no ``feature`` column, an empty ``feature`` cell (file and line named), or
            no rows.
    """
    path = config.SEEDS_DIR / f"{CONVERSION_SEED}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"conversion FEATS types: seed {path} not found")
    rows: list[tuple[int, str]] = []
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        if "feature" not in (reader.fieldnames or ()):
            raise ValueError(f"{path}: no 'feature' column (header {reader.fieldnames})")
        for row in reader:
            t = (row["feature"] or "").strip()
            if not t:
                raise ValueError(f"{path}:{reader.line_num}: empty 'feature'")
            rows.append((reader.line_num, t))
    if not rows:
        raise ValueError(f"{path}: no feature types")
    return tuple(rows)
