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
* **Interval.** :func:`percentile_interval`: the ``(1 − confidence)/2`` and
  ``(1 + confidence)/2`` quantiles (numpy's default linear interpolation) of the resampled
  statistic, :data:`~.definitions.CONFIDENCE` 0.95 by default.
"""

from __future__ import annotations

import numpy as np

from .definitions import CONFIDENCE, RESAMPLES, SEED

__all__ = ["CONFIDENCE", "RESAMPLES", "SEED", "draw", "percentile_interval", "resampled_sums"]


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
