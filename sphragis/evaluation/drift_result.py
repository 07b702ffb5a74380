"""The result of a convention-drift decomposition (``sphragis eval drift``; :mod:`.drift`): the
figures of :class:`DriftResult` with their definitions, per-feature agreement and the top
confusions, as JSON (:meth:`DriftResult.to_dict`) and as the plain-text report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .definitions import CONVERSION_SEED, PER_TYPE, PROTOCOLS, SCHEME_TYPES
from .score import pct, r2


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
        return pct(self.same, self.denominator)

    def to_dict(self) -> dict[str, Any]:
        return {"feature": self.feature, "agreement": r2(self.agreement), "a_words": self.a_words,
                "b_words": self.b_words, "union_words": self.union_words, "same": self.same}


@dataclass(frozen=True)
class Confusion:
    """A label pair ``a → b`` with its word count and ``share`` (percent of the error class)."""

    a: str
    b: str
    count: int
    share: float

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "count": self.count, "share": r2(self.share)}


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
        return pct(self.shared_scheme_words - self.shared_scheme_errors, self.shared_scheme_words)

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
            "scores": {"UPOS": r2(self.upos), "UFeats": r2(self.ufeats),
                       "UAS": r2(self.uas), "LAS": r2(self.las)},
            "evaluator": {k: r2(v) for k, v in self.evaluator.items()},
            "ufeats": {
                "gap": r2(self.ufeats_gap),
                "scheme_absent_points": r2(self.scheme_absent_points),
                "shared_scheme_points": r2(self.shared_scheme_points),
                "errors": self.ufeats_errors,
                "scheme_absent_words": self.scheme_absent_words,
                "scheme_absent_errors": self.scheme_absent_errors,
                "shared_scheme_words": self.shared_scheme_words,
                "shared_scheme_errors": self.shared_scheme_errors,
                "shared_scheme_ufeats": r2(self.shared_scheme_ufeats),
                "scheme_absent_types": list(self.scheme_absent_types),
                "b_only_types": list(self.b_only_types),
                "b_outside_scheme_types": list(self.b_outside_scheme_types),
                "per_type": [f.to_dict() for f in self.feature_agreement],
            },
            "las": {
                "gap": r2(self.las_gap),
                "attachment_points": r2(self.attachment_points),
                "label_only_points": r2(self.label_only_points),
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
