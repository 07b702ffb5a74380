"""Convention decomposition between two annotations of the same sentences (SPEC §12, seed 001).

Seed 001, "PROIEL convention decomposition": for one set of sentences annotated twice, ``a``
(treated as gold) and ``b`` (treated as system), account for the disagreement instead of just
scoring it. Pure functions over CoNLL-U text, independent of the warehouse (SPEC §12;
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
``gold``): comparable with published pyaegean reports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import udtools.udeval as _udeval

from .. import config
from .definitions import (
    CONVERSION_SEED,
    PER_TYPE,
    PROTOCOLS,
    SCHEME_TYPES,
    conversion_seed_rows,
)
from .conllu_sentences import (
    ConlluFormatError,
    Sentence,
    TokenizationMismatch,
    check_tokenization,
    parse_sentences,
)
from .drift_result import Confusion, DriftResult, FeatureAgreement
from .score import evaluate_whole

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
