"""The evaluation toolkit's percentile bootstrap (SPEC §12; seed 001), shared by ``sphragis eval
score`` (resampling sentences, :mod:`.score`) and ``sphragis score`` (resampling benchmark rows,
:mod:`sphragis.submission`).

A statistic that is a ratio of sums over items (F1 = 2·Σcorrect / (Σgold + Σsystem), accuracy =
Σcorrect / n, a class's F1 from its Σtp, Σgold, Σpredicted) is resampled exactly and cheaply: each
item carries its counts, a resample is ``bootstrap`` rows of ``n`` item indices drawn with
replacement, and the resampled sums are the multiplicity-weighted sums of the item counts
(:func:`resampled_sums`), i.e. exactly what counting the concatenated resampled items would give.

* **Draws.** :func:`draw`: ``rng.integers(0, n, size=(bootstrap, n))`` with
  ``rng = numpy.random.default_rng(seed)`` (defaults :data:`~.definitions.SEED` 776, :data:`~.definitions.RESAMPLES` 999).
  A fresh generator per scored subset keeps a subset's CI independent of which other subsets
  exist; two subsets whose resamples are combined (a difference of two scores) take their draws
  one after the other from one generator, so that they are independent (two fresh generators
  with the same seed would draw the same positions, scaled: correlated resamples).
* **Classification.** :func:`label_counts` and :func:`label_resamples`: accuracy, macro-F1 and
  per-label F1 of each resample of labelled rows (``sphragis score``, ``sphragis audit``);
  :func:`classification_interval` their CI for one set of predictions.
* **Interval.** :func:`percentile_interval`: the ``(1 − confidence)/2`` and
  ``(1 + confidence)/2`` quantiles (numpy's default linear interpolation) of the resampled
  statistic, :data:`~.definitions.CONFIDENCE` 0.95 by default.
"""

from __future__ import annotations

import numpy as np

from .definitions import CONFIDENCE, RESAMPLES, SEED

__all__ = ["CONFIDENCE", "RESAMPLES", "SEED", "classification_interval", "draw", "label_counts", "label_resamples",
           "percentile_interval", "resampled_sums"]


def draw(n: int, bootstrap: int, rng: np.random.Generator | int) -> np.ndarray:
    """``(bootstrap, n)`` item indices in ``[0, n)`` drawn with replacement.

    Args:
        n: number of items (> 0).
        bootstrap: number of resamples.
        rng: a generator (its state advances: successive calls are independent draws) or a seed
            (a fresh ``default_rng(seed)``).
    """
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    return gen.integers(0, n, size=(bootstrap, n))


def resampled_sums(counts: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Sums of the per-item ``counts`` over every resample.

    Args:
        counts: shape ``(n, ...)``, one block of counts per item.
        indices: ``(bootstrap, n)`` from :func:`draw`.

    Returns:
        float64 array of shape ``(bootstrap, ...)``: resample ``b``'s sum of ``counts[i]`` over
        its drawn indices ``i`` (multiplicity-weighted; exact in float64 for any realistic count).
    """
    n = counts.shape[0]
    b = indices.shape[0]
    offsets = (np.arange(b, dtype=np.int64) * n)[:, None]
    mult = np.bincount((indices + offsets).ravel(), minlength=b * n).reshape(b, n).astype(np.float64)
    sums = mult @ counts.reshape(n, -1).astype(np.float64)
    return sums.reshape((b, *counts.shape[1:]))


def percentile_interval(samples: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile CI of resampled statistics ``samples`` (resamples on axis 0).

    Returns:
        ``(low, high)``, each of shape ``samples.shape[1:]`` (numpy scalars for 1-d samples).
    """
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(samples, [alpha, 1.0 - alpha], axis=0)
    return low, high


def label_counts(y: np.ndarray, p: np.ndarray, labels: list[str]) -> np.ndarray:
    """Per row of gold labels ``y`` and predictions ``p``: ``[correct, tp per label…, gold per
    label…, predicted per label…]`` (n × (1 + 3L), ``labels`` the L labels in column order)."""
    index = {label: j for j, label in enumerate(labels)}
    n, k = len(y), len(labels)
    gold = np.zeros((n, k))
    pred = np.zeros((n, k))
    gold[np.arange(n), [index[a] for a in y]] = 1
    pred[np.arange(n), [index[a] for a in p]] = 1
    correct = (np.asarray(y) == np.asarray(p)).astype(np.float64)[:, None]
    return np.hstack([correct, gold * pred, gold, pred])


def label_resamples(counts: np.ndarray, indices: np.ndarray, n_labels: int) -> dict[str, np.ndarray]:
    """Accuracy, macro-F1 (each of shape B) and per-label F1 (B × L) of every resample (``indices``
    from :func:`draw`) from the summed :func:`label_counts`; a label absent from a resample's gold
    and predictions scores 0 there and does not count in its macro-F1 (sklearn's ``zero_division=0``
    over the labels present)."""
    sums = resampled_sums(counts, indices)
    n = indices.shape[1]
    tp, gold, pred = (sums[:, 1 + i * n_labels: 1 + (i + 1) * n_labels] for i in range(3))
    den = gold + pred
    present = den > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(present, 2 * tp / den, 0.0)
    return {"accuracy": sums[:, 0] / n, "macro_f1": f1.sum(axis=1) / present.sum(axis=1), "per_label": f1}


def classification_interval(y: np.ndarray, p: np.ndarray, rng: np.random.Generator | int = SEED,
                            bootstrap: int = RESAMPLES, confidence: float = CONFIDENCE
                            ) -> dict[str, np.ndarray | list[float]]:
    """Percentile-bootstrap CIs of the accuracy and macro-F1 of predictions ``p`` of gold labels
    ``y`` (rows resampled, :func:`draw` from ``rng``).

    Returns:
        {"accuracy": [low, high], "macro_f1": [low, high], "resamples": {"accuracy": (B,),
        "macro_f1": (B,)}} (fractions); intervals None for no rows.
    """
    if len(y) == 0:
        return {"accuracy": None, "macro_f1": None, "resamples": None}
    labels = sorted(set(map(str, y)) | set(map(str, p)))
    res = label_resamples(label_counts(np.asarray(y, dtype=object).astype(str), np.asarray(p, dtype=object).astype(str),
                                       labels), draw(len(y), bootstrap, rng), len(labels))
    out: dict = {m: [float(v) for v in percentile_interval(res[m], confidence)] for m in ("accuracy", "macro_f1")}
    out["resamples"] = {m: res[m] for m in ("accuracy", "macro_f1")}
    return out
