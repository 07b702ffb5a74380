"""Published units as CoNLL-U: rendering and validation (SPEC §9 ``render_conllu``, §10).

A *unit* is what one entry of a row's ``conllu`` column holds: a list of sentences, each a list of
token dicts with the CoNLL-U field names ``id, form, lemma, upos, feats, head, deprel`` (seed 000
"Column structure"). ``xpos``, ``deps`` and ``misc`` are not published and render as ``_``.
"""

from __future__ import annotations

import bisect
import gc
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


_MARK, _LETTER, _OTHER = "mark", "letter", "other"
#: character → _MARK (U+2019 or a combining mark), _LETTER (a Greek letter) or _OTHER, filled as
#: characters are met (a corpus has a few hundred distinct characters; looked up, not recomputed).
_CHAR_KINDS: dict[str, str] = {}


def _char_kind(ch: str) -> str:
    """The SPEC §5.1 class of one character (see :func:`string_problem`)."""
    cat = unicodedata.category(ch)
    if ch == APOSTROPHE or cat.startswith("M"):
        return _MARK
    if cat.startswith("L") and unicodedata.name(ch, "").startswith("GREEK"):
        return _LETTER
    return _OTHER


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
            kind = _CHAR_KINDS.get(ch)
            if kind is None:
                kind = _CHAR_KINDS[ch] = _char_kind(ch)
            if kind == _LETTER:
                has_letter = True
            elif kind == _OTHER:
                return (f"{value!r}: character {ch!r} (U+{ord(ch):04X}) is not a Greek letter, a combining "
                        f"mark or U+2019")
        if not has_letter:
            return f"{value!r} has no Greek letter"
    if "\u0300" in unicodedata.normalize("NFD", value):
        return f"{value!r} carries a grave accent (published as acute)"
    return None


def feats_problem(feats: str) -> str | None:
    """What breaks the SPEC §5 FEATS rule in one non-empty FEATS value, or None: every feature type
    in the published inventory, names in canonical (case-insensitive alphabetical) order, no name twice."""
    names = [kv.split("=", 1)[0] for kv in str(feats).split("|")]
    if any(n not in FEATURE_TYPES for n in names):
        return f"FEATS {feats!r} has a feature type outside the published inventory"
    if names != sorted(names, key=str.lower) or len(set(names)) != len(names):
        return f"FEATS {feats!r} is not in canonical order"
    return None


def field_problem(col: str, value: object) -> str | None:
    """What breaks a SPEC §5 / §5.1 rule in one published ``form`` or ``lemma`` (``col``), or None.

    A missing lemma (None) is allowed (published as ``_``); otherwise the value is a non-empty
    string, NFC, lowercase (``grc_utils.lower_grc``), without surrounding, repeated or non-space
    whitespace, and passes :func:`string_problem`. The checks and messages are those of
    :func:`check_invariants`, which prefixes the token id.
    """
    if value is None and col == "lemma":
        return None  # no lemma upstream: published as '_'
    if not isinstance(value, str) or not value:
        return f"empty {col}"
    if unicodedata.normalize("NFC", value) != value:
        return f"{col} {value!r} is not NFC"
    if _lower(value) != value:
        return f"{col} {value!r} is not lowercase"
    if value != value.strip() or "  " in value or any(ch.isspace() and ch != " " for ch in value):
        return f"{col} {value!r} has surrounding, repeated or non-space whitespace"
    problem = string_problem(value, lemma=col == "lemma")
    if problem:
        return f"{col} {problem} (SPEC §5.1)"
    return None


def punctuation_problem(form: str) -> str | None:
    """A form made only of punctuation (Unicode category P*) breaks SPEC §5 (punctuation tokens are
    removed): the message, or None."""
    if all(unicodedata.category(ch).startswith("P") for ch in form):
        return f"punctuation token {form!r} was not removed"
    return None


def check_invariants(unit: Unit, text: str) -> str | None:
    """The first SPEC §5 invariant that ``unit`` (with its ``text`` entry) breaks, or None.

    Checks, token by token in this order: published UPOS/DEPREL inventories, FEATS types and
    canonical order (:func:`feats_problem`), forms and lemmas lowercase (``grc_utils.lower_grc``)
    and NFC, made of Greek letters, combining marks and U+2019 only (SPEC §5.1,
    :func:`field_problem`, :func:`string_problem`), no punctuation token
    (:func:`punctuation_problem`); then that the forms joined by single spaces reconstruct ``text``
    exactly. The exporter checks the same rules on distinct values (``writer.invalid_units``)
    and calls this function for the message of a unit that fails.
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
            problem = feats_problem(feats) if feats else None
            if problem is None:
                problem = field_problem("form", t["form"]) or field_problem("lemma", t["lemma"])
            if problem is None:
                problem = punctuation_problem(t["form"])
            if problem:
                return f"token {tid}: {problem}"
            forms.append(t["form"])
    if " ".join(forms) != text:
        return f"forms do not reconstruct text: {' '.join(forms)[:80]!r} vs {None if text is None else text[:80]!r}"
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


def loader_problem(document: str, starts: Sequence[int]) -> tuple[int, str] | None:
    """Re-parse a rendered document with the CoNLL 2018 shared-task loader (SPEC §10).

    ``udtools.udeval.load_conllu`` enforces ten columns, integer ids from 1, heads in range,
    exactly one root, no cycles and sentence termination. The loader's words reference each other
    (parent links), so its result is taken apart here and freed at once by reference counting;
    the cyclic garbage collector is paused meanwhile (its passes over the loader's objects cost
    about a third of the loader's own time).

    Args:
        document: the units rendered one after the other (``render_conllu`` text).
        starts: the 1-based first line of each unit in ``document``, ascending.

    Returns:
        None when the loader accepts the document, else (index into ``starts`` of the unit the
        error points at (:func:`unit_at`), ``"CoNLL 2018 loader: <message>"``).
    """
    gc_was_enabled = gc.isenabled()
    gc.disable()  # the loader allocates millions of small objects: collection passes over them cost
    try:         # about a third of its time (measured), and refcounting frees them below anyway
        try:
            ud = load_conllu(io.StringIO(document), "<published units>", {})
        except UDError as exc:
            return unit_at(str(exc), list(starts)), f"CoNLL 2018 loader: {exc}"
        for word in ud.words:
            word.parent = word.functional_children = word.columns = None
        ud.words = ud.tokens = ud.characters = ud.sentences = None
        return None
    finally:
        if gc_was_enabled:
            gc.enable()


def validate_units(units: Iterable[tuple[str, Unit, str]]) -> int:
    """Render and re-parse every unit with the CoNLL 2018 shared-task loader (SPEC §10).

    :func:`loader_problem` re-parses; :func:`check_invariants` adds the §5 invariants. Units are
    checked in one pass over one rendered document; a loader error is traced back to the unit by
    line number.

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
    failed = loader_problem("".join(parts), starts)
    if failed is not None:
        raise UnitValidationError(ids[failed[0]], failed[1])
    return n
