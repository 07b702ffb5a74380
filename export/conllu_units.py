"""Published units as CoNLL-U: rendering and validation (SPEC §9 ``render_conllu``, §10).

A *unit* is what one entry of a row's ``conllu`` column holds: a list of sentences, each a list of
token dicts with the CoNLL-U field names ``id, form, lemma, upos, feats, head, deprel`` (seed 000
"Column structure"). ``xpos``, ``deps`` and ``misc`` are not published and render as ``_``.
"""

from __future__ import annotations

import bisect
import io
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

from udtools.udeval import UDError, load_conllu

#: Published inventories (SPEC §5).
UPOS_INVENTORY = frozenset("NOUN VERB ADJ PRON ADV ADP NUM INTJ X".split())
DEPREL_INVENTORY = frozenset("root nsubj obj ccomp obl nmod advmod case conj dep".split())
FEATURE_TYPES = frozenset("Aspect Case Degree Gender Mood Number Person Tense VerbForm Voice".split())

Token = Mapping[str, object]
Unit = Sequence[Sequence[Token]]


class UnitValidationError(ValueError):
    """A published unit broke CoNLL-U or a SPEC §5 invariant; ``unit_id`` names it."""

    def __init__(self, unit_id: str, problem: str):
        self.unit_id, self.problem = unit_id, problem
        super().__init__(f"published unit {unit_id}: {problem}")


def _field(value: object) -> str:
    return "_" if value is None or value == "" else str(value)


def render_conllu(unit: Unit) -> str:
    """Canonical CoNLL-U text of one published unit (SPEC §9).

    Args:
        unit: list of sentences; each sentence a list of token mappings with keys
            ``id`` (int), ``form``, ``lemma``, ``upos``, ``feats`` (str or None), ``head`` (int),
            ``deprel``.

    Returns:
        Token rows only (no comments), ten tab-separated columns, XPOS/DEPS/MISC ``_``, one blank
        line after each sentence.
    """
    out = []
    for sentence in unit:
        for t in sentence:
            out.append("\t".join((
                str(t["id"]), _field(t["form"]), _field(t["lemma"]), _field(t["upos"]), "_",
                _field(t.get("feats")), str(t["head"]), _field(t["deprel"]), "_", "_",
            )))
        out.append("")
    return "\n".join(out) + "\n"


def _lower(s: str) -> str:
    # the same Greek-aware lowercasing the models apply (grc_utils.lower_grc, completed)
    from sphragis.udfs import lower_grc

    return unicodedata.normalize("NFC", lower_grc(s))


APOSTROPHE = "\u2019"  # the one published elision/prodelision mark (SPEC §5, §5.1)


def string_problem(value: str, *, lemma: bool = False) -> str | None:
    """What breaks the SPEC §5.1 invariant in one published form or lemma, or None.

    A form consists of Greek letters, combining marks and U+2019 only, starts with no combining
    mark and carries no grave accent (U+0300: one accent convention). A lemma likewise, except one
    hyphen between two Greek parts (the compound notation ``κατά-ἕζομαι``).

    Args:
        value: the published string (NFC).
        lemma: apply the lemma rule (one inner hyphen allowed).

    Returns:
        A message naming the offending character (with its code point), or None.
    """
    parts = value.split("-") if lemma else [value]
    if len(parts) > 2:
        return f"{value!r} has more than one hyphen"
    for part in parts:
        if not part:
            return f"{value!r}: a hyphen that is not between two Greek parts"
        if unicodedata.category(part[0]).startswith("M"):
            return f"{value!r} starts with a combining mark U+{ord(part[0]):04X}"
        has_letter = False
        for ch in part:
            cat = unicodedata.category(ch)
            if ch == APOSTROPHE or cat.startswith("M"):
                continue
            if cat.startswith("L") and unicodedata.name(ch, "").startswith("GREEK"):
                has_letter = True
                continue
            return (f"{value!r}: character {ch!r} (U+{ord(ch):04X}) is not a Greek letter, a combining "
                    f"mark or U+2019")
        if not has_letter:
            return f"{value!r} has no Greek letter"
    if "\u0300" in unicodedata.normalize("NFD", value):
        return f"{value!r} carries a grave accent (published as acute)"
    return None


def check_invariants(unit: Unit, text: str) -> str | None:
    """The first SPEC §5 invariant that ``unit`` (with its ``text`` entry) breaks, or None.

    Checks: published UPOS/DEPREL inventories, FEATS types and canonical order, no punctuation
    token, forms and lemmas lowercase (``grc_utils.lower_grc``) and NFC, forms and lemmas made of
    Greek letters, combining marks and U+2019 only (SPEC §5.1, :func:`string_problem`), and that
    the forms joined by single spaces reconstruct ``text`` exactly.
    """
    forms = []
    for sentence in unit:
        for t in sentence:
            tid = t["id"]
            if t["upos"] not in UPOS_INVENTORY:
                return f"token {tid}: UPOS {t['upos']!r} not in the published inventory"
            if t["deprel"] not in DEPREL_INVENTORY:
                return f"token {tid}: DEPREL {t['deprel']!r} not in the published inventory"
            feats = t.get("feats")
            if feats:
                names = [kv.split("=", 1)[0] for kv in str(feats).split("|")]
                if any(n not in FEATURE_TYPES for n in names):
                    return f"token {tid}: FEATS {feats!r} has a feature type outside the published inventory"
                if names != sorted(names, key=str.lower) or len(set(names)) != len(names):
                    return f"token {tid}: FEATS {feats!r} is not in canonical order"
            for col in ("form", "lemma"):
                v = t[col]
                if v is None and col == "lemma":
                    continue  # no lemma upstream: published as '_'
                if not isinstance(v, str) or not v:
                    return f"token {tid}: empty {col}"
                if unicodedata.normalize("NFC", v) != v:
                    return f"token {tid}: {col} {v!r} is not NFC"
                if _lower(v) != v:
                    return f"token {tid}: {col} {v!r} is not lowercase"
                if v != v.strip() or "  " in v or any(ch.isspace() and ch != " " for ch in v):
                    return f"token {tid}: {col} {v!r} has surrounding, repeated or non-space whitespace"
                problem = string_problem(v, lemma=col == "lemma")
                if problem:
                    return f"token {tid}: {col} {problem} (SPEC §5.1)"
            if all(unicodedata.category(ch).startswith("P") for ch in t["form"]):
                return f"token {tid}: punctuation token {t['form']!r} was not removed"
            forms.append(t["form"])
    if " ".join(forms) != text:
        return f"forms do not reconstruct text: {' '.join(forms)[:80]!r} vs {text[:80]!r}"
    return None


def unit_at(message: str, starts: list[int]) -> int:
    """Index of the unit a ``load_conllu`` error points at, from its 1-based line number.

    ``starts`` are the units' first lines in the rendered document. Sentence-level errors ("... the
    sentence that ends at [line] N": cycles, roots, heads out of range) name the blank line closing
    the sentence, so the unit is the one holding line N - 1; token-level errors ("... at line N")
    name the token's own line; an error without a line is at the end of the document.
    """
    m = re.search(r"\bat (?:line )?(\d+)", message)
    if not m:
        return len(starts) - 1
    line = int(m.group(1)) - (1 if "ends at" in message else 0)
    return max(0, bisect.bisect_right(starts, line) - 1)


def validate_units(units: Iterable[tuple[str, Unit, str]]) -> int:
    """Render and re-parse every unit with the CoNLL 2018 shared-task loader (SPEC §10).

    ``udtools.udeval.load_conllu`` enforces ten columns, integer ids from 1, heads in range,
    exactly one root, no cycles and sentence termination; :func:`check_invariants` adds the §5
    invariants. Units are checked in one pass over one rendered document; a loader error is
    traced back to the unit by line number.

    Args:
        units: (unit_id, unit, text) triples.

    Returns:
        The number of units checked.

    Raises:
        UnitValidationError: naming the first unit that fails.
    """
    parts, starts, ids = [], [], []
    line = 1
    n = 0
    for unit_id, unit, text in units:
        problem = check_invariants(unit, text)
        if problem:
            raise UnitValidationError(unit_id, problem)
        rendered = render_conllu(unit)
        parts.append(rendered)
        starts.append(line)
        ids.append(unit_id)
        line += rendered.count("\n")
        n += 1
    if not parts:
        return 0
    try:
        load_conllu(io.StringIO("".join(parts)), "<published units>", {})
    except UDError as exc:
        raise UnitValidationError(ids[unit_at(str(exc), starts)], f"CoNLL 2018 loader: {exc}") from None
    return n
