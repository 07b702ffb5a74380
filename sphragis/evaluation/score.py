"""Gold-tokenization scoring of CoNLL-U predictions (SPEC §12, seed 001).

Pure functions over CoNLL-U *text*; nothing here touches the warehouse.

Protocol (seed 001 "Protocol"; SPEC §12 "Scoring"):

* **Scorer.** The CoNLL 2018 shared-task evaluator as maintained by UD (``udtools.udeval``).
  Reported figures are its F1 per metric, as percentages (F1 × 100). The metric names are the
  evaluator's own: ``UPOS, XPOS, UFeats, AllTags, Lemmas, UAS, LAS, CLAS, MLAS, BLEX``. The
  evaluator's conventions therefore apply unchanged: only universal feature types count for
  UFeats, deprel subtypes are ignored (``obl:arg`` = ``obl``), a gold lemma ``_`` matches
  anything, CLAS/MLAS/BLEX count only content-deprel words.
* **Gold tokenization.** Gold and prediction must carry the same sentences with the same token
  and word lines (ID and FORM, empty nodes excluded). The first difference raises
  :class:`TokenizationMismatch` *before* the evaluator runs, naming the sentence and the token.
* **Confidence intervals.** Percentile bootstrap over sentences (:mod:`.bootstrap`, the
  toolkit's one bootstrap): ``bootstrap`` resamples (default 999) of sentence indices drawn with
  replacement from ``numpy.random.default_rng(seed)`` (default seed 776); the interval is the
  ``(1 − confidence)/2`` and ``(1 + confidence)/2`` quantiles (numpy's default linear
  interpolation) of the resampled F1 values.
* **Empty resamples.** A resample whose F1 denominator is zero for a metric (no gold and no
  system items, e.g. CLAS over resampled sentences without content words) scores 0, exactly as
  the official evaluator scores such a file (``Score.f1 = 0.0``); it is kept, not dropped,
  so that the CI matches the official evaluator's. A metric with no items in the whole subset has
  no F1 (``None``) and no CI.
* **Too few sentences.** A subset (bucket or whole fold) with fewer than
  :data:`MIN_CI_SENTENCES` sentences gets no CI: resampling one sentence only ever redraws
  it, so the interval would be a point. Its ``ci_note`` says so (JSON and table).
* **How the bootstrap stays cheap and exact.** The evaluator is run once per sentence, giving
  per-sentence ``(correct, gold_total, system_total)`` counts per metric; a resample's F1 is
  ``2·Σcorrect / (Σgold + Σsystem)``, i.e. exactly what the evaluator would report on the
  concatenated resampled sentences. The evaluator is also run once on the whole files and the
  summed per-sentence counts are checked to equal its counts (a mismatch raises
  ``RuntimeError``), so the headline figure *is* the evaluator's own.
* **Buckets.** ``buckets`` maps a sentence id (the ``# sent_id`` comment, or the 1-based sentence
  number as a string when a sentence has none) to a label (genre, author, …); each bucket is
  scored the same way over its own sentences, with its own bootstrap from a fresh
  ``default_rng(seed)`` (so a bucket's CI does not depend on which other buckets exist).
  Sentences absent from the mapping form the bucket ``"(unassigned)"``.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import udtools.udeval as _udeval

from .bootstrap import CONFIDENCE, RESAMPLES, SEED, draw, percentile_interval, resampled_sums
from .conllu_sentences import (
    ConlluFormatError,
    Sentence,
    TokenizationMismatch,
    check_tokenization,
    parse_sentences,
)
from .definitions import EMPTY_RESAMPLE_RULE, MIN_CI_SENTENCES

__all__ = [
    "METRICS",
    "MIN_CI_SENTENCES",
    "UNASSIGNED_BUCKET",
    "ConlluFormatError",
    "MetricScore",
    "ScoreResult",
    "BucketScore",
    "Sentence",
    "TokenizationMismatch",
    "check_tokenization",
    "evaluate_whole",
    "format_table",
    "parse_sentences",
    "score",
    "sentence_counts",
]

#: Metrics reported, in the evaluator's names and its table order.
METRICS: tuple[str, ...] = (
    "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "CLAS", "MLAS", "BLEX",
)
#: Bucket label for sentences missing from the ``buckets`` mapping.
UNASSIGNED_BUCKET = "(unassigned)"

# Column indices into a count triple.
_CORRECT, _GOLD, _SYSTEM = 0, 1, 2


# --------------------------------------------------------------------------------------------
# Evaluator calls
# --------------------------------------------------------------------------------------------


def _load(text: str, name: str) -> Any:
    return _udeval.load_conllu(io.StringIO(text), name, {})


def _counts_of(evaluation: Mapping[str, Any]) -> np.ndarray:
    return np.array([[evaluation[m].correct, evaluation[m].gold_total, evaluation[m].system_total]
                     for m in METRICS], dtype=np.int64)


def evaluate_whole(gold_text: str, pred_text: str) -> dict[str, Any]:
    """Run the evaluator once on two whole CoNLL-U texts; returns its result dict.

    Values are the evaluator's ``Score`` objects (``correct``, ``gold_total``, ``system_total``,
    ``precision``, ``recall``, ``f1`` as fractions in [0, 1]). No tokenization pre-check here.
    Raises :class:`ConlluFormatError` when the evaluator cannot load or align the texts.
    """
    try:
        return _udeval.evaluate(_load(gold_text, "gold"), _load(pred_text, "pred"))
    except _udeval.UDError as exc:
        raise ConlluFormatError(f"evaluator: {exc}") from exc


def sentence_counts(gold: Sequence[Sentence], pred: Sequence[Sentence]) -> np.ndarray:
    """Per-sentence evaluator counts: ``int64`` array of shape ``(n_sentences, len(METRICS), 3)``.

    The last axis is ``(correct, gold_total, system_total)`` as the evaluator reports them for
    that sentence alone (with gold tokenization: word counts for UPOS…LAS, content-deprel word
    counts for CLAS/MLAS/BLEX). Call :func:`check_tokenization` first; summing over sentences then
    reproduces the whole-file counts. Raises :class:`ConlluFormatError` naming the sentence and
    side when the evaluator rejects a sentence (e.g. a cycle, several roots, a bad HEAD).
    """
    out = np.empty((len(gold), len(METRICS), 3), dtype=np.int64)
    for i, (g, p) in enumerate(zip(gold, pred)):
        try:
            g_ud = _load(g.text(), "gold")
        except _udeval.UDError as exc:
            raise ConlluFormatError(f"gold {g.describe()}: {exc}") from exc
        try:
            p_ud = _load(p.text(), "pred")
        except _udeval.UDError as exc:
            raise ConlluFormatError(f"pred {g.describe()}: {exc}") from exc
        try:
            out[i] = _counts_of(_udeval.evaluate(g_ud, p_ud))
        except _udeval.UDError as exc:  # pragma: no cover - prevented by check_tokenization
            raise ConlluFormatError(f"{g.describe()}: {exc}") from exc
    return out


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


def pct(num: float, den: float) -> float | None:
    """``num`` as a percentage of ``den`` (None when ``den`` is 0): the toolkit's one percentage."""
    return 100.0 * num / den if den else None


def _f1(correct: int, gold: int, system: int) -> float | None:
    # Same float expression as the evaluator's ``100 * Score.f1``, so figures agree bit for bit.
    return 100 * (2 * correct / (system + gold)) if system + gold else None


def r2(x: float | None) -> float | None:
    """``x`` rounded to 2 decimals for the JSON and table outputs (None stays None)."""
    return None if x is None else round(x, 2)


@dataclass(frozen=True)
class MetricScore:
    """One metric: exact counts, percentages (unrounded floats) and the bootstrap CI (percent).

    ``f1`` = 100 · 2·correct / (gold_total + system_total), exactly the evaluator's F1 × 100;
    ``None`` when both totals are 0 (undefined, e.g. CLAS on a bucket without content words;
    the evaluator would print 0). ``ci_low``/``ci_high`` are ``None`` when ``bootstrap == 0``,
    when ``f1`` is ``None``, or when the subset has fewer than :data:`MIN_CI_SENTENCES`
    sentences.
    """

    metric: str
    correct: int
    gold_total: int
    system_total: int
    precision: float | None
    recall: float | None
    f1: float | None
    ci_low: float | None
    ci_high: float | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; percentages rounded to 2 decimals, counts exact."""
        return {
            "f1": r2(self.f1),
            "ci": None if self.ci_low is None else [r2(self.ci_low), r2(self.ci_high)],
            "precision": r2(self.precision),
            "recall": r2(self.recall),
            "correct": self.correct,
            "gold_total": self.gold_total,
            "system_total": self.system_total,
        }


@dataclass(frozen=True)
class BucketScore:
    """Scores over one subset of sentences (a bucket, or the whole fold).

    ``ci_note`` explains why the subset has no CIs although bootstrapping was asked for (fewer
    than :data:`MIN_CI_SENTENCES` sentences), else ``None``.
    """

    sentences: int
    words: int
    metrics: dict[str, MetricScore]
    ci_note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (see :meth:`MetricScore.to_dict`)."""
        return {"sentences": self.sentences, "words": self.words, "ci_note": self.ci_note,
                "metrics": {m: s.to_dict() for m, s in self.metrics.items()}}


@dataclass(frozen=True)
class ScoreResult:
    """Result of :func:`score`: the whole fold, optional buckets, and the protocol parameters."""

    overall: BucketScore
    bootstrap: int
    seed: int
    confidence: float
    buckets: dict[str, BucketScore] = field(default_factory=dict)

    @property
    def metrics(self) -> dict[str, MetricScore]:
        """Shortcut for ``overall.metrics``."""
        return self.overall.metrics

    def f1(self, metric: str) -> float | None:
        """Overall F1 of ``metric`` in percent, rounded to 2 decimals (the reported figure)."""
        return r2(self.overall.metrics[metric].f1)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serializable dict (``json.dumps`` works on it directly)."""
        return {
            "protocol": {
                "scorer": "udtools.udeval (CoNLL 2018 shared-task evaluator)",
                "figure": "F1 x 100",
                "tokenization": "gold",
                "ci": "percentile bootstrap over sentences",
                "empty_resample": EMPTY_RESAMPLE_RULE,
                "min_ci_sentences": MIN_CI_SENTENCES,
                "bootstrap": self.bootstrap,
                "seed": self.seed,
                "confidence": self.confidence,
            },
            **self.overall.to_dict(),
            "buckets": {label: b.to_dict() for label, b in self.buckets.items()},
        }

    def format_table(self) -> str:
        """Plain-text table; see :func:`format_table`."""
        return format_table(self)


def _bootstrap_f1(counts: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """F1 (percent) of every resample and metric: shape ``(bootstrap, len(METRICS))``.

    Resampled totals are the multiplicity-weighted sums of per-sentence counts
    (:func:`.bootstrap.resampled_sums`). A resample with no gold and no system items scores 0, as
    the CoNLL 2018 evaluator scores it (``Score.f1``; :data:`EMPTY_RESAMPLE_RULE`).
    """
    sums = resampled_sums(counts, indices)
    den = sums[:, :, _GOLD] + sums[:, :, _SYSTEM]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, 100 * (2 * sums[:, :, _CORRECT] / den), 0.0)


def _score_subset(counts: np.ndarray, bootstrap: int, seed: int, confidence: float) -> BucketScore:
    total = counts.sum(axis=0)
    n = int(counts.shape[0])
    lows: list[float | None] = [None] * len(METRICS)
    highs: list[float | None] = [None] * len(METRICS)
    note = None
    if bootstrap > 0 and n < MIN_CI_SENTENCES:
        note = (f"no CI: {n} sentence(s); the bootstrap needs at least {MIN_CI_SENTENCES} "
                "(resampling one sentence only redraws it)")
    elif bootstrap > 0:
        low, high = percentile_interval(_bootstrap_f1(counts, draw(n, bootstrap, seed)), confidence)
        for j in range(len(METRICS)):
            if total[j, _GOLD] + total[j, _SYSTEM] > 0:  # else no F1, hence no CI
                lows[j], highs[j] = float(low[j]), float(high[j])
    metrics: dict[str, MetricScore] = {}
    for j, m in enumerate(METRICS):
        c, g, s = (int(x) for x in total[j])
        metrics[m] = MetricScore(
            metric=m, correct=c, gold_total=g, system_total=s,
            precision=pct(c, s), recall=pct(c, g), f1=_f1(c, g, s),
            ci_low=lows[j], ci_high=highs[j])
    words = int(total[METRICS.index("UPOS"), _GOLD])
    return BucketScore(sentences=n, words=words, metrics=metrics, ci_note=note)


def score(gold_text: str, pred_text: str, *, bootstrap: int = RESAMPLES, seed: int = SEED,
          confidence: float = CONFIDENCE, buckets: Mapping[str, str] | None = None) -> ScoreResult:
    """Score predicted CoNLL-U against gold CoNLL-U with gold tokenization (SPEC §12, seed 001).

    Args:
        gold_text: the gold fold as CoNLL-U text.
        pred_text: the prediction as CoNLL-U text: same sentences, same token/word lines.
        bootstrap: number of percentile-bootstrap resamples over sentences (0 disables CIs).
        seed: seed of ``numpy.random.default_rng`` for the resampling.
        confidence: two-sided confidence level of the CI, in (0, 1).
        buckets: optional ``sent_id → label`` map (sentence number as a string for sentences
            without ``# sent_id``); each label is scored separately, unmapped sentences go to
            ``"(unassigned)"``.

    Returns:
        :class:`ScoreResult`; every percentage (F1, precision, recall, CI bounds) is in percent;
        ``to_dict()`` rounds them to 2 decimals.

    Raises:
        TokenizationMismatch: sentences or token/word lines differ (first difference reported).
        ConlluFormatError: text the evaluator cannot load (cycle, several roots, bad columns…),
            or no sentences at all.
        ValueError: ``bootstrap < 0`` or ``confidence`` outside (0, 1).
        RuntimeError: the summed per-sentence counts differ from the whole-file evaluation
            (an internal invariant; should never happen).
    """
    if bootstrap < 0:
        raise ValueError(f"bootstrap must be >= 0, got {bootstrap}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    gold = parse_sentences(gold_text, side="gold")
    pred = parse_sentences(pred_text, side="pred")
    if not gold:
        raise ConlluFormatError("gold: no sentences")
    check_tokenization(gold, pred)
    counts = sentence_counts(gold, pred)

    whole = _counts_of(evaluate_whole("".join(s.text() for s in gold),
                                      "".join(s.text() for s in pred)))
    if not np.array_equal(whole, counts.sum(axis=0)):  # pragma: no cover - invariant
        raise RuntimeError("per-sentence evaluator counts do not sum to the whole-file counts")

    overall = _score_subset(counts, bootstrap, seed, confidence)
    bucket_scores: dict[str, BucketScore] = {}
    if buckets is not None:
        members: dict[str, list[int]] = {}
        for i, s in enumerate(gold):
            members.setdefault(buckets.get(s.label, UNASSIGNED_BUCKET), []).append(i)
        for label in sorted(members):
            bucket_scores[label] = _score_subset(counts[members[label]], bootstrap, seed,
                                                 confidence)
    return ScoreResult(overall=overall, bootstrap=bootstrap, seed=seed, confidence=confidence,
                       buckets=bucket_scores)


# --------------------------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------------------------


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def _table_rows(b: BucketScore, level: int) -> list[str]:
    ci_head = f"{level}% CI"
    rows = [f"{'Metric':<8} {'F1':>7}  {ci_head:<17} {'correct':>8} {'gold':>8} {'system':>8}"]
    for m, s in b.metrics.items():
        ci = "" if s.ci_low is None else f"[{_fmt(s.ci_low)}, {_fmt(s.ci_high)}]"
        rows.append(f"{m:<8} {_fmt(s.f1):>7}  {ci:<17} {s.correct:>8} {s.gold_total:>8} "
                    f"{s.system_total:>8}")
    return rows


def format_table(result: ScoreResult) -> str:
    """Render a :class:`ScoreResult` as a plain-text table (F1 %, CI, counts; buckets after)."""
    level = round(result.confidence * 100)
    head = (f"CoNLL 2018 F1 (udtools.udeval), gold tokenization: {result.overall.sentences} "
            f"sentences, {result.overall.words} words")
    boot = (f"CI: percentile bootstrap over sentences, {result.bootstrap} resamples, "
            f"seed {result.seed}" if result.bootstrap else "CI: none (bootstrap = 0)")
    lines = [head, boot, "", *_table_rows(result.overall, level)]
    if result.overall.ci_note:
        lines.append(f"note: {result.overall.ci_note}")
    for label, b in result.buckets.items():
        lines += ["", f"Bucket {label}: {b.sentences} sentences, {b.words} words",
                  *_table_rows(b, level)]
        if b.ci_note:
            lines.append(f"note: {b.ci_note}")
    return "\n".join(lines)
