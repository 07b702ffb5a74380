"""Published units as CoNLL-U: the one renderer and the one validator of the SPEC §5 invariants
(SPEC §9 ``render_conllu``, §10), and the CoNLL 2018 loader that re-parses what was rendered.

A *unit* is what one entry of a row's ``conllu`` column holds: a list of sentences, each a list of
token dicts with the CoNLL-U field names ``id, form, lemma, upos, feats, head, deprel`` (seed 000
"Column structure"). ``xpos``, ``deps`` and ``misc`` are not published and render as ``_``.

Both work column-wise on Arrow (SPEC §13: no Python loop over tokens): :func:`render_units`
renders every unit of a ``tokens`` column, :func:`unit_problems` checks every unit of a unit table
(the rules of :func:`feats_problem`, :func:`field_problem`, :func:`punctuation_problem` applied to
each distinct value once). :func:`render_conllu` and :func:`check_invariants` are the same two
functions for one unit given as Python lists. The published inventories are read from the seeds
the models ``ref()`` (:func:`sphragis.config.seed_values`), never written here.
"""

from __future__ import annotations

import bisect
import gc
import io
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from udtools.udeval import UDError, load_conllu

from sphragis.config import seed_values

from .arrays import column, list_of, offsets_of, one_array, struct_fields

#: The UPOS of punctuation tokens, which published units do not have (SPEC §5).
PUNCT = "PUNCT"
#: Published inventories (SPEC §5), from the seeds: UPOS of ``upos_from_tag.csv`` but PUNCT,
#: DEPREL of ``deprel_published.csv``, feature types of ``feats_published_types.csv``.
UPOS_INVENTORY = frozenset(seed_values("upos_from_tag", "upos")) - {PUNCT}
DEPREL_INVENTORY = frozenset(seed_values("deprel_published", "deprel"))
FEATURE_TYPES = frozenset(seed_values("feats_published_types", "feature"))

Token = Mapping[str, object]
Unit = Sequence[Sequence[Token]]
#: Arrow types of the token fields of a unit given as Python lists (:func:`tokens_array`);
#: ``id`` and ``head`` take the type of their values.
_STRING_FIELDS = ("form", "lemma", "upos", "feats", "deprel")
_TOKEN_FIELDS = ("id", "form", "lemma", "upos", "feats", "head", "deprel")


class UnitValidationError(ValueError):
    """A published unit broke CoNLL-U or a SPEC §5 invariant; ``unit_id`` names it."""

    def __init__(self, unit_id: str, problem: str):
        self.unit_id, self.problem = unit_id, problem
        super().__init__(f"published unit {unit_id}: {problem}")


def tokens_array(sentences: Sequence[Sequence[Token]]) -> pa.ListArray:
    """Python sentences (lists of token mappings) as a ``tokens`` column: list<struct<id, form,
    lemma, upos, feats, head, deprel>>, one entry per sentence (a missing ``feats`` is null)."""
    flat = [t for sentence in sentences for t in sentence]
    offsets = pa.array(np.cumsum([0, *(len(s) for s in sentences)]), pa.int32())
    fields = [pa.array([t.get(name) for t in flat], pa.string() if name in _STRING_FIELDS else None)
              for name in _TOKEN_FIELDS]
    return list_of(offsets, pa.StructArray.from_arrays(fields, names=list(_TOKEN_FIELDS)))


def _blank(values: pa.Array) -> pa.Array:
    # a NULL or empty field renders as '_'
    strings = pc.cast(values, pa.string())
    return pc.fill_null(pc.if_else(pc.equal(strings, ""), "_", strings), "_")


def render_units(tokens: pa.ListArray | pa.ChunkedArray) -> pa.Array:
    """Canonical CoNLL-U text of every unit of a ``tokens`` column (one sentence per unit; SPEC §9),
    vectorized: the one renderer.

    Token rows only (no comments), ten tab-separated columns, XPOS/DEPS/MISC ``_``, a NULL or
    empty field ``_``, every line ended by a newline and one blank line after the sentence.

    Args:
        tokens: list<struct<id, form, lemma, upos, feats, head, deprel>>, one entry per unit.

    Returns:
        A string array, one CoNLL-U document per unit.
    """
    tokens = one_array(tokens)
    f = struct_fields(tokens.flatten())
    underscore = pa.scalar("_")
    lines = pc.binary_join_element_wise(
        _blank(f["id"]), _blank(f["form"]), _blank(f["lemma"]), _blank(f["upos"]), underscore, _blank(f["feats"]),
        _blank(f["head"]), _blank(f["deprel"]), underscore, underscore, "\t")
    lines = pc.binary_join_element_wise(lines, pa.scalar(""), "\n")  # line + "\n"
    per_unit = pc.binary_join(list_of(offsets_of(tokens), lines), "")
    return pc.binary_join_element_wise(per_unit, pa.scalar(""), "\n")


def render_conllu(unit: Unit) -> str:
    """Canonical CoNLL-U text of one published unit (SPEC §9): :func:`render_units` of its sentences.

    Args:
        unit: list of sentences; each sentence a list of token mappings with keys
            ``id`` (int), ``form``, ``lemma``, ``upos``, ``feats`` (str or None), ``head`` (int),
            ``deprel``.

    Returns:
        Token rows only (no comments), ten tab-separated columns, XPOS/DEPS/MISC ``_``, one blank
        line after each sentence.
    """
    return "".join(render_units(tokens_array(unit)).to_pylist())


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
    :func:`unit_problems`, which prefixes the token id.
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


def _per_value(values: pa.Array, problem: Callable[[object], str | None]) -> pa.Array:
    """Per entry of ``values``, the message ``problem`` returns for its value (computed once per
    distinct value, null included), or null."""
    distinct = pc.unique(values)
    messages = pa.array([problem(v) for v in distinct.to_pylist()], pa.string())
    return pc.take(messages, pc.index_in(values, value_set=distinct))


def _inventory(name: str, inventory: frozenset[str]) -> Callable[[object], str | None]:
    return lambda v: None if v in inventory else f"{name} {v!r} not in the published inventory"


def unit_problems(units: pa.Table) -> dict[int, str]:
    """The first SPEC §5 invariant each unit breaks: the one validator of the invariants (SPEC §10).

    Checks, token by token in order: published UPOS/DEPREL inventories, FEATS types and canonical
    order (:func:`feats_problem`), forms and lemmas lowercase (``grc_utils.lower_grc``) and NFC,
    made of Greek letters, combining marks and U+2019 only (SPEC §5.1, :func:`field_problem`,
    :func:`string_problem`), no punctuation token (:func:`punctuation_problem`); then that the
    forms joined by single spaces reconstruct the unit's ``text`` exactly. Column-wise: each rule
    runs once per distinct value; Python builds messages only for the units that fail.

    Args:
        units: columns ``text`` and ``tokens`` (list<struct<id, form, lemma, upos, feats, head,
            deprel>>, the unit's one sentence) as ``assembly.fetch_units`` returns them.

    Returns:
        {index of a failing unit in ``units``: ``"token <id>: <problem>"`` or ``"forms do not
        reconstruct text: ..."``}; empty when every unit passes.
    """
    tokens = column(units, "tokens")
    f = struct_fields(tokens.flatten())
    message = pc.coalesce(
        _per_value(f["upos"], _inventory("UPOS", UPOS_INVENTORY)),
        _per_value(f["deprel"], _inventory("DEPREL", DEPREL_INVENTORY)),
        _per_value(f["feats"], lambda v: feats_problem(v) if v else None),
        _per_value(f["form"], lambda v: field_problem("form", v)),
        _per_value(f["lemma"], lambda v: field_problem("lemma", v)),
        _per_value(f["form"], lambda v: punctuation_problem(v) if isinstance(v, str) and v else None),
    )
    problems: dict[int, str] = {}
    bad = np.flatnonzero(pc.is_valid(message).to_numpy(zero_copy_only=False))
    if len(bad):
        units_of = pc.list_parent_indices(tokens).to_numpy()[bad]
        for unit, first in zip(*np.unique(units_of, return_index=True)):
            k = int(bad[first])  # the unit's first failing token
            problems[int(unit)] = f"token {f['id'][k].as_py()}: {message[k].as_py()}"
    # A NULL form makes the join NULL; that unit already failed. A NULL token list joins as ''.
    joined = pc.fill_null(pc.binary_join(list_of(offsets_of(tokens), f["form"]), " "), "")
    text = column(units, "text")
    for i in np.flatnonzero(~pc.fill_null(pc.equal(joined, text), False).to_numpy(zero_copy_only=False)):
        if int(i) not in problems:
            forms, t = joined[i].as_py(), text[i].as_py()
            problems[int(i)] = (f"forms do not reconstruct text: {forms[:80]!r} vs "
                                f"{None if t is None else t[:80]!r}")
    return dict(sorted(problems.items()))


def check_invariants(unit: Unit, text: str | None) -> str | None:
    """The first SPEC §5 invariant that ``unit`` (with its ``text`` entry) breaks, or None:
    :func:`unit_problems` of this one unit (its sentences' tokens in order)."""
    table = pa.table({"text": pa.array([text], pa.string()),
                      "tokens": tokens_array([[t for sentence in unit for t in sentence]])})
    return unit_problems(table).get(0)


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
    try:         # a large share of its time, and refcounting frees them below anyway
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
