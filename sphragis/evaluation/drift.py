"""Convention decomposition between two annotations of the same sentences (SPEC §12, seed 001).

Seed 001, "PROIEL convention decomposition": for one set of sentences annotated twice, ``a``
(treated as gold) and ``b`` (treated as system), account for the disagreement instead of just
scoring it. Pure functions over CoNLL-U text, independent of the warehouse (issue 8 item 3;
first use: AGDT's native conversion versus UD Perseus on the overlap).

Definitions (all figures in percent of the ``N`` words unless said otherwise; with identical
tokenization the evaluator's F1 equals per-word accuracy):

* Word attributes follow the CoNLL 2018 evaluator (``udtools.udeval``) exactly: FEATS keep only
  the universal feature types (``udeval.UNIVERSAL_FEATURES``) and are compared as the sorted
  ``|``-joined string; DEPREL subtypes are stripped (``obl:arg`` → ``obl``); HEAD is compared as
  the word index. UPOS, UFeats, UAS and LAS computed here are checked against the evaluator run on
  the whole texts (a mismatch raises ``RuntimeError``).
* **Scheme** (``scheme_types``, named definition): the feature types ``b``'s annotation scheme
  can carry. ``"conversion"`` (default; seed 001): the fixed list of types the AGDT → UD feature
  conversion emits, read from the seed ``sql/seeds/feats_published_types.csv`` (the SPEC §5
  published FEATS types; :func:`conversion_types`). ``"observed"``: the types ``b`` uses
  anywhere in the file. Or an explicit list of universal types. A type of ``a`` outside the
  scheme is *scheme-absent*.
* **UFeats gap** = 100 − UFeats, split into *scheme-absent* points: 100 · (UFeats errors on
  words whose ``a`` FEATS contain a scheme-absent type) / N (with ``"observed"`` every such word
  is an error; with a fixed list it is one unless ``b`` emits the type anyway) and
  *shared-scheme* points: the rest of the gap (disagreement where ``b``'s scheme could have
  matched; an upper bound on genuine error, since it still includes value conventions and
  ``b``-only types). ``shared_scheme_ufeats`` is UFeats over the words whose ``a`` feature types
  all lie in the scheme.
* **Per-type agreement** for every feature type of ``a`` inside the scheme: the words where both
  carry the type with the same value, divided by (``per_type``, named definition) ``"gold"``
  (default; seed 001): the words where ``a`` carries the type (per-type recall; ``b``'s
  additions do not lower it), or ``"union"``: the words where ``a`` or ``b`` carries it (a
  missing type counts as a different value, so ``b``'s additions lower it). Both counts are
  always reported.
* **LAS gap** = 100 − LAS = *attachment* points (100 − UAS: wrong head) + *label-only* points
  (UAS − LAS: right head, wrong deprel).
* **Relation confusions**: ``a`` deprel → ``b`` deprel over label-only words; ``share`` is the
  percentage of all label-only words. **UPOS confusions**: ``a`` UPOS → ``b`` UPOS over UPOS
  errors; ``share`` is the percentage of all UPOS errors. Top ``top`` pairs (default 10) by
  count, ties broken alphabetically.

The definitions in force are named in the report itself (``DriftResult.definitions``, the JSON
``definitions`` block); their names live in :mod:`sphragis.evaluation.definitions`, whose
``PROTOCOLS["seed001"]`` holds the protocol's choices (scheme ``conversion``, per-type
``gold``): comparable with published pyaegean reports (issue 17).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import udtools.udeval as _udeval

from .. import config
from .definitions import (
    CONVERSION_SEED,
    PER_TYPE,
    PROTOCOLS,
    SCHEME_TYPES,
    conversion_seed_rows,
)
from .score import (
    ConlluFormatError,
    Sentence,
    TokenizationMismatch,
    check_tokenization,
    evaluate_whole,
    parse_sentences,
)

__all__ = [
    "PER_TYPE",
    "PROTOCOLS",
    "SCHEME_TYPES",
    "Confusion",
    "DriftResult",
    "FeatureAgreement",
    "TokenizationMismatch",
    "conversion_types",
    "decompose",
    "parse_scheme_types",
]

_UNIVERSAL = frozenset(_udeval.UNIVERSAL_FEATURES)


@cache
def conversion_types() -> tuple[str, ...]:
    """The FEATS types the AGDT → UD conversion emits, sorted (SPEC §5 "FEATS"; seed 001).

    From the seed ``sql/seeds/feats_published_types.csv``
    (:func:`definitions.conversion_seed_rows`), the same table the ``int_token_morphology``
    model restricts published FEATS to.

    Raises:
        FileNotFoundError: the seed is missing.
        ValueError: the seed is malformed, or names a type that is not a universal feature type
            of the CoNLL 2018 evaluator (file and line named).
    """
    rows = conversion_seed_rows()
    for line, t in rows:
        if t not in _UNIVERSAL:
            raise ValueError(f"{config.SEEDS_DIR / CONVERSION_SEED}.csv:{line}: {t!r} is not a "
                             "universal feature type of the CoNLL 2018 evaluator")
    return tuple(sorted(t for _, t in rows))


def parse_scheme_types(spec: str | Sequence[str]) -> tuple[str, tuple[str, ...] | None]:
    """Resolve a scheme choice to ``(name, types)``.

    Args:
        spec: ``"conversion"``, ``"observed"``, a comma-separated list of feature types
            (``"Case,Number"``) or a sequence of them.

    Returns:
        ``("conversion", conversion_types())``, ``("observed", None)`` (the types are b's, known
        only with the data) or ``("list", sorted unique types)``.

    Raises:
        ValueError: an empty list or a name that is not a universal feature type of the
            CoNLL 2018 evaluator (``udeval.UNIVERSAL_FEATURES``; other types are ignored by
            UFeats, so they cannot be part of a scheme).
    """
    if isinstance(spec, str):
        if spec in ("conversion", "observed"):
            return spec, (conversion_types() if spec == "conversion" else None)
        items = [t.strip() for t in spec.split(",")]
    else:
        items = [str(t).strip() for t in spec]
    items = [t for t in items if t]
    if not items:
        raise ValueError("scheme types: expected 'conversion', 'observed' or a comma-separated "
                         "list of feature types, got an empty list")
    unknown = sorted(set(items) - _UNIVERSAL)
    if unknown:
        raise ValueError(f"scheme types: not universal feature types: {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(_UNIVERSAL))}; or 'conversion', 'observed')")
    return "list", tuple(sorted(set(items)))


@dataclass(frozen=True)
class _Word:
    upos: str
    feats: str  # evaluator-normalized: universal types only, sorted, "|"-joined ("" if none)
    head: int
    deprel: str  # subtype stripped

    @property
    def feat_map(self) -> dict[str, str]:
        if not self.feats:
            return {}
        return {k: v for k, _, v in (f.partition("=") for f in self.feats.split("|"))}


def _words(sentences: list[Sentence]) -> list[_Word]:
    out: list[_Word] = []
    for s in sentences:
        for line in s.lines:
            if line.startswith("#"):
                continue
            cols = line.split("\t")
            if "-" in cols[0] or "." in cols[0]:
                continue
            feats = "|".join(sorted(f for f in cols[5].split("|")
                                    if f.split("=", 1)[0] in _UNIVERSAL))
            try:
                head = int(cols[6])
            except ValueError as exc:
                raise ConlluFormatError(f"{s.describe()}: cannot parse HEAD {cols[6]!r}") from exc
            out.append(_Word(cols[3], feats, head, cols[7].split(":")[0]))
    return out


def _types(words: list[_Word]) -> set[str]:
    return {t for w in words for t in w.feat_map}


def _pct(num: float, den: float) -> float | None:
    return 100.0 * num / den if den else None


def _r2(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


@dataclass(frozen=True)
class FeatureAgreement:
    """Agreement on one feature type of ``a`` inside the scheme.

    ``a_words``/``b_words``: words carrying the type in ``a``/``b``; ``union_words``: in either;
    ``same``: words where both carry it with the same value; ``per_type`` the denominator's
    definition (:data:`PER_TYPE`): ``agreement`` = 100 · same / a_words (``"gold"``) or
    100 · same / union_words (``"union"``), in percent.
    """

    feature: str
    a_words: int
    b_words: int
    union_words: int
    same: int
    per_type: str = "gold"

    @property
    def denominator(self) -> int:
        """Words the agreement is taken over (``a_words`` or ``union_words``)."""
        return self.a_words if self.per_type == "gold" else self.union_words

    @property
    def agreement(self) -> float | None:
        return _pct(self.same, self.denominator)

    def to_dict(self) -> dict[str, Any]:
        return {"feature": self.feature, "agreement": _r2(self.agreement), "a_words": self.a_words,
                "b_words": self.b_words, "union_words": self.union_words, "same": self.same}


@dataclass(frozen=True)
class Confusion:
    """A label pair ``a → b`` with its word count and ``share`` (percent of the error class)."""

    a: str
    b: str
    count: int
    share: float

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "count": self.count, "share": _r2(self.share)}


@dataclass(frozen=True)
class DriftResult:
    """Result of :func:`decompose`. Percentages are unrounded floats; ``to_dict`` rounds to 2.

    Counts: ``sentences``, ``words`` (N), ``upos_errors``, ``ufeats_errors``,
    ``scheme_absent_words`` (words whose ``a`` FEATS hold a scheme-absent type),
    ``scheme_absent_errors`` (the UFeats errors among them; equal with ``observed``),
    ``shared_scheme_words`` (the other words), ``shared_scheme_errors``,
    ``attachment_errors`` (wrong head), ``label_only_errors`` (right head, wrong deprel).
    Type lists: ``scheme`` (the scheme's types; with ``observed`` b's types),
    ``scheme_absent_types`` (in ``a``, outside the scheme), ``b_only_types`` (in ``b``, never in
    ``a``), ``b_outside_scheme_types`` (in ``b`` but outside a fixed scheme: a sign the scheme
    does not describe ``b``). ``scheme_types`` / ``per_type`` name the definitions in force
    (:data:`SCHEME_TYPES`, :data:`PER_TYPE`), ``protocol`` the reference protocol applied, if any.
    ``evaluator`` holds the evaluator's own UPOS/UFeats/UAS/LAS F1 (percent), equal to the
    figures derived here.
    """

    sentences: int
    words: int
    upos_errors: int
    ufeats_errors: int
    scheme_absent_words: int
    scheme_absent_errors: int
    shared_scheme_words: int
    shared_scheme_errors: int
    attachment_errors: int
    label_only_errors: int
    scheme: tuple[str, ...]
    scheme_absent_types: tuple[str, ...]
    b_only_types: tuple[str, ...]
    b_outside_scheme_types: tuple[str, ...]
    feature_agreement: tuple[FeatureAgreement, ...]
    relation_confusions: tuple[Confusion, ...]
    upos_confusions: tuple[Confusion, ...]
    evaluator: dict[str, float]
    scheme_types: str = "conversion"
    per_type: str = "gold"
    protocol: str | None = None

    # -- derived percentages ----------------------------------------------------------------
    def _of_words(self, n: int) -> float:
        """``n`` as a percentage of all compared words, the base of these figures (a gap in points
        is an error count over all words; only :attr:`shared_scheme_ufeats` has another base)."""
        return 100.0 * n / self.words

    @property
    def upos(self) -> float:
        return self._of_words(self.words - self.upos_errors)

    @property
    def ufeats(self) -> float:
        return self._of_words(self.words - self.ufeats_errors)

    @property
    def uas(self) -> float:
        return self._of_words(self.words - self.attachment_errors)

    @property
    def las(self) -> float:
        return self._of_words(self.words - self.attachment_errors - self.label_only_errors)

    @property
    def ufeats_gap(self) -> float:
        """100 − UFeats (points)."""
        return self._of_words(self.ufeats_errors)

    @property
    def scheme_absent_points(self) -> float:
        """Part of the UFeats gap on words holding a scheme-absent type of ``a`` (points)."""
        return self._of_words(self.scheme_absent_errors)

    @property
    def shared_scheme_points(self) -> float:
        """Rest of the UFeats gap: disagreement within ``b``'s scheme (points)."""
        return self._of_words(self.shared_scheme_errors)

    @property
    def shared_scheme_ufeats(self) -> float | None:
        """UFeats (percent) over the words whose ``a`` feature types all lie in the scheme."""
        return _pct(self.shared_scheme_words - self.shared_scheme_errors, self.shared_scheme_words)

    @property
    def las_gap(self) -> float:
        """100 − LAS (points)."""
        return self._of_words(self.attachment_errors + self.label_only_errors)

    @property
    def attachment_points(self) -> float:
        """100 − UAS (points)."""
        return self._of_words(self.attachment_errors)

    @property
    def label_only_points(self) -> float:
        """UAS − LAS (points)."""
        return self._of_words(self.label_only_errors)

    # -- output -----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-serializable dict; percentages rounded to 2 decimals, counts exact.

        Starts with the ``definitions`` block (:meth:`definitions`)."""
        return {
            "definitions": self.definitions(),
            "sentences": self.sentences,
            "words": self.words,
            "scores": {"UPOS": _r2(self.upos), "UFeats": _r2(self.ufeats),
                       "UAS": _r2(self.uas), "LAS": _r2(self.las)},
            "evaluator": {k: _r2(v) for k, v in self.evaluator.items()},
            "ufeats": {
                "gap": _r2(self.ufeats_gap),
                "scheme_absent_points": _r2(self.scheme_absent_points),
                "shared_scheme_points": _r2(self.shared_scheme_points),
                "errors": self.ufeats_errors,
                "scheme_absent_words": self.scheme_absent_words,
                "scheme_absent_errors": self.scheme_absent_errors,
                "shared_scheme_words": self.shared_scheme_words,
                "shared_scheme_errors": self.shared_scheme_errors,
                "shared_scheme_ufeats": _r2(self.shared_scheme_ufeats),
                "scheme_absent_types": list(self.scheme_absent_types),
                "b_only_types": list(self.b_only_types),
                "b_outside_scheme_types": list(self.b_outside_scheme_types),
                "per_type": [f.to_dict() for f in self.feature_agreement],
            },
            "las": {
                "gap": _r2(self.las_gap),
                "attachment_points": _r2(self.attachment_points),
                "label_only_points": _r2(self.label_only_points),
                "attachment_errors": self.attachment_errors,
                "label_only_errors": self.label_only_errors,
                "relation_confusions": [c.to_dict() for c in self.relation_confusions],
            },
            "upos": {
                "errors": self.upos_errors,
                "confusions": [c.to_dict() for c in self.upos_confusions],
            },
        }

    def definitions(self) -> dict[str, Any]:
        """The definitions in force, named and spelled out (the JSON ``definitions`` block)."""
        source = {"conversion": f"sql/seeds/{CONVERSION_SEED}.csv", "observed": "b",
                  "list": "user"}[self.scheme_types]
        return {
            "protocol": self.protocol,
            "protocol_description": (PROTOCOLS[self.protocol]["description"]
                                     if self.protocol else None),
            "scheme_types": {"choice": self.scheme_types, "types": list(self.scheme),
                             "source": source, "definition": SCHEME_TYPES[self.scheme_types]},
            "per_type": {"choice": self.per_type, "definition": PER_TYPE[self.per_type]},
            "ufeats_split": "gap = 100 - UFeats = scheme-absent points (UFeats errors on words "
                            "whose a FEATS hold a scheme-absent type) + shared-scheme points "
                            "(the other UFeats errors), in points of all words",
            "las_split": "gap = 100 - LAS = attachment points (100 - UAS) + label-only points "
                         "(UAS - LAS)",
            "feats": "CoNLL 2018 evaluator conventions: universal feature types only",
        }

    def format_report(self) -> str:
        """Plain-text report of the decomposition (percent / points, 2 decimals)."""
        f = "{:.2f}".format
        lines = [
            f"Convention decomposition (a = gold, b = system): {self.sentences} sentences, "
            f"{self.words} words",
            f"definitions: scheme types {self.scheme_types} ({', '.join(self.scheme) or 'none'}); "
            f"per-type agreement over {self.per_type}"
            + (f"; protocol {self.protocol}: {PROTOCOLS[self.protocol]['description']}"
               if self.protocol else ""),
            f"UPOS {f(self.upos)}  UFeats {f(self.ufeats)}  UAS {f(self.uas)}  LAS {f(self.las)}",
            "",
            f"UFeats gap {f(self.ufeats_gap)} points = scheme-absent {f(self.scheme_absent_points)}"
            f" ({self.scheme_absent_errors} words) + shared-scheme {f(self.shared_scheme_points)}"
            f" ({self.shared_scheme_errors} words)",
            "  types in a outside the scheme: " + (", ".join(self.scheme_absent_types) or "none"),
            "  types in b never used by a: " + (", ".join(self.b_only_types) or "none"),
        ]
        if self.b_outside_scheme_types:
            lines.append("  note: b uses types outside the scheme: "
                         + ", ".join(self.b_outside_scheme_types)
                         + " (the scheme does not describe b; see --scheme-types)")
        ss = self.shared_scheme_ufeats
        lines.append(f"  UFeats on the {self.shared_scheme_words} shared-scheme words: "
                     + ("n/a" if ss is None else f(ss)))
        if self.feature_agreement:
            over = "words with the type in a" if self.per_type == "gold" else \
                "words with the type in a or b"
            lines.append(f"  per-type agreement ({over}):")
            for fa in self.feature_agreement:
                ag = fa.agreement
                lines.append(f"    {fa.feature:<10} {'n/a' if ag is None else f(ag):>7}  "
                             f"({fa.same}/{fa.denominator}; a {fa.a_words}, b {fa.b_words}, "
                             f"either {fa.union_words})")
        lines += [
            "",
            f"LAS gap {f(self.las_gap)} points = attachment {f(self.attachment_points)}"
            f" ({self.attachment_errors} words) + label-only {f(self.label_only_points)}"
            f" ({self.label_only_errors} words)",
        ]
        if self.relation_confusions:
            lines.append("  top relation confusions (share of label-only errors):")
            for c in self.relation_confusions:
                lines.append(f"    {c.a + ' -> ' + c.b:<24} {c.count:>6}  {f(c.share):>6}%")
        lines += ["", f"UPOS errors: {self.upos_errors}"]
        if self.upos_confusions:
            lines.append("  top UPOS confusions (share of UPOS errors):")
            for c in self.upos_confusions:
                lines.append(f"    {c.a + ' -> ' + c.b:<24} {c.count:>6}  {f(c.share):>6}%")
        return "\n".join(lines)


def _top(counter: Counter[tuple[str, str]], total: int, top: int) -> tuple[Confusion, ...]:
    items = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return tuple(Confusion(a, b, n, 100.0 * n / total) for (a, b), n in items)


def decompose(a_text: str, b_text: str, *, top: int = 10,
              scheme_types: str | Sequence[str] = "conversion", per_type: str = "gold",
              protocol: str | None = None) -> DriftResult:
    """Decompose the disagreement of annotation ``b`` against annotation ``a`` (SPEC §12, seed 001).

    Args:
        a_text: CoNLL-U text of annotation ``a`` (treated as gold).
        b_text: CoNLL-U text of annotation ``b`` (treated as system) of the same sentences with
            the same tokenization.
        top: how many confusion pairs to list (relations and UPOS).
        scheme_types: ``"conversion"`` (default, seed 001), ``"observed"``, or a list of feature
            types (comma-separated string or sequence); see :data:`SCHEME_TYPES`.
        per_type: ``"gold"`` (default, seed 001) or ``"union"``; see :data:`PER_TYPE`.
        protocol: a key of :data:`PROTOCOLS` (``"seed001"``): sets ``scheme_types`` and
            ``per_type`` to the protocol's choices; giving different ones too is an error.

    Returns:
        :class:`DriftResult` (see the module docstring for the definitions; percentages in
        percent, gaps in percentage points of all words).

    Raises:
        TokenizationMismatch: the sentences or their token/word lines differ (as in
            :func:`sphragis.evaluation.score.score`).
        ConlluFormatError: text the evaluator cannot load, or no words at all.
        ValueError: an unknown protocol, per-type definition or feature type, or explicit
            choices that contradict ``protocol``.
        FileNotFoundError: ``"conversion"`` and the seed ``feats_published_types.csv`` is missing.
        RuntimeError: the figures derived here differ from the evaluator's (internal invariant).
    """
    if protocol is not None:
        if protocol not in PROTOCOLS:
            raise ValueError(f"unknown protocol {protocol!r} (known: {', '.join(PROTOCOLS)})")
        choice = PROTOCOLS[protocol]
        if (scheme_types, per_type) != (choice["scheme_types"], choice["per_type"]):
            raise ValueError(f"protocol {protocol} uses scheme types {choice['scheme_types']} and "
                             f"per-type {choice['per_type']}; got {scheme_types!r} and "
                             f"{per_type!r}")
    if per_type not in PER_TYPE:
        raise ValueError(f"per-type: expected one of {', '.join(PER_TYPE)}, got {per_type!r}")
    scheme_name, fixed = parse_scheme_types(scheme_types)
    a_sents = parse_sentences(a_text, side="a")
    b_sents = parse_sentences(b_text, side="b")
    check_tokenization(a_sents, b_sents)
    a_words, b_words = _words(a_sents), _words(b_sents)
    if not a_words:
        raise ConlluFormatError("a: no words")
    n = len(a_words)

    a_types, b_types = _types(a_words), _types(b_words)
    scheme = frozenset(b_types if fixed is None else fixed)
    absent = a_types - scheme
    shared_types = sorted(a_types & scheme)

    upos_conf: Counter[tuple[str, str]] = Counter()
    rel_conf: Counter[tuple[str, str]] = Counter()
    ufeats_errors = scheme_absent_words = absent_errors = shared_errors = 0
    attach = label_only = 0
    union = Counter[str]()
    same = Counter[str]()
    a_has = Counter[str]()
    b_has = Counter[str]()
    for wa, wb in zip(a_words, b_words):
        if wa.upos != wb.upos:
            upos_conf[(wa.upos, wb.upos)] += 1
        fa, fb = wa.feat_map, wb.feat_map
        outside = not absent.isdisjoint(fa)
        scheme_absent_words += outside
        if wa.feats != wb.feats:
            ufeats_errors += 1
            if outside:
                absent_errors += 1
            else:
                shared_errors += 1
        for t in shared_types:
            ina, inb = t in fa, t in fb
            if ina or inb:
                union[t] += 1
                a_has[t] += ina
                b_has[t] += inb
                same[t] += ina and inb and fa[t] == fb[t]
        if wa.head != wb.head:
            attach += 1
        elif wa.deprel != wb.deprel:
            label_only += 1
            rel_conf[(wa.deprel, wb.deprel)] += 1
    upos_errors = sum(upos_conf.values())

    ev = evaluate_whole("".join(s.text() for s in a_sents), "".join(s.text() for s in b_sents))
    mine = {"UPOS": n - upos_errors, "UFeats": n - ufeats_errors, "UAS": n - attach,
            "LAS": n - attach - label_only}
    for metric, correct in mine.items():
        e = ev[metric]
        if (e.correct, e.gold_total, e.system_total) != (correct, n, n):  # pragma: no cover
            raise RuntimeError(f"{metric}: decomposition ({correct}/{n}) differs from the "
                               f"evaluator ({e.correct}/{e.gold_total}/{e.system_total})")

    agreement = tuple(FeatureAgreement(t, a_has[t], b_has[t], union[t], same[t], per_type)
                      for t in shared_types)
    return DriftResult(
        sentences=len(a_sents), words=n, upos_errors=upos_errors, ufeats_errors=ufeats_errors,
        scheme_absent_words=scheme_absent_words, scheme_absent_errors=absent_errors,
        shared_scheme_words=n - scheme_absent_words, shared_scheme_errors=shared_errors,
        attachment_errors=attach, label_only_errors=label_only,
        scheme=tuple(sorted(scheme)),
        scheme_absent_types=tuple(sorted(absent)), b_only_types=tuple(sorted(b_types - a_types)),
        b_outside_scheme_types=tuple(sorted(b_types - scheme)),
        feature_agreement=agreement,
        relation_confusions=_top(rel_conf, label_only, top),
        upos_confusions=_top(upos_conf, upos_errors, top),
        evaluator={m: 100.0 * ev[m].f1 for m in mine},
        scheme_types=scheme_name, per_type=per_type, protocol=protocol,
    )
