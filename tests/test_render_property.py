"""Property-based tests of the published-unit renderer and validator (SPEC §9 ``render_conllu``,
§10 validation) with hypothesis.

Valid units are random dependency trees (one root, every other token attached to a token placed
before it in a random order, so no cycles and heads in range) over forms and lemmas from a small
Greek lowercase alphabet (NFC, with accented letters) and the published UPOS / DEPREL / FEATS
inventories. Rendering and re-parsing with the CoNLL 2018 loader (``udtools.udeval.load_conllu``)
and with ``conllu.parse`` gives the same ids, heads, relations, forms, lemmas, UPOS and FEATS back;
the SPEC §5 checks accept them. Invalid units are the same trees with one mutation (a cycle, a
self-loop, a second root, a head outside the sentence): the validator rejects them and names the
mutated unit, wherever it sits among valid ones. The vectorized renderer of the exporter
(``conllu_units.render_units``) must render every unit exactly as ``render_conllu`` does.
"""

from __future__ import annotations

import io
import unicodedata

import conllu
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from udtools.udeval import load_conllu

from sphragis.export import conllu_units, validation
from sphragis.export.conllu_units import (
    DEPREL_INVENTORY,
    FEATURE_TYPES,
    UPOS_INVENTORY,
    UnitValidationError,
    check_invariants,
    feats_problem,
    field_problem,
    punctuation_problem,
    render_conllu,
)
from sphragis.export.validation import validate_units

LETTERS = "αβγδεζηθικλμνξοπρστυφχψωάέήίόύώϊϋΐΰ"
WORD = st.text(alphabet=LETTERS, min_size=1, max_size=8).map(lambda s: unicodedata.normalize("NFC", s))
UPOS = st.sampled_from(sorted(UPOS_INVENTORY))
DEPREL = st.sampled_from(sorted(DEPREL_INVENTORY - {"root"}))
FEATS = st.lists(
    st.sampled_from(sorted(FEATURE_TYPES)), unique=True, max_size=4,
).flatmap(lambda names: st.tuples(*[st.sampled_from(["A", "B", "Plur", "Sing"]) for _ in names]).map(
    lambda values, names=names: "|".join(f"{n}={v}" for n, v in sorted(zip(names, values), key=lambda kv: kv[0].lower()))
    or None))

ROW_SCHEMA = pa.list_(pa.struct([("id", pa.int32()), ("form", pa.string()), ("lemma", pa.string()),
                                 ("upos", pa.string()), ("feats", pa.string()), ("head", pa.int32()),
                                 ("deprel", pa.string())]))


def reference_invariants(unit, text):
    """The per-token SPEC §5 check written token by token in Python, as the oracle."""
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


@st.composite
def trees(draw, min_size: int = 1, max_size: int = 14) -> list[dict]:
    """A published unit's tokens: a random tree with exactly one root (head 0, deprel root)."""
    n = draw(st.integers(min_size, max_size))
    order = draw(st.permutations(range(1, n + 1)))
    heads = {order[0]: 0}
    for k, tid in enumerate(order[1:], start=1):
        heads[tid] = order[draw(st.integers(0, k - 1))]
    return [{"id": i, "form": draw(WORD), "lemma": draw(WORD), "upos": draw(UPOS), "feats": draw(FEATS),
             "head": heads[i], "deprel": "root" if heads[i] == 0 else draw(DEPREL)} for i in range(1, n + 1)]


def text_of(tokens: list[dict]) -> str:
    return " ".join(t["form"] for t in tokens)


@st.composite
def mutated(draw) -> tuple[list[dict], str]:
    """A tree with one defect the CoNLL 2018 loader must reject, and the defect's name."""
    kind = draw(st.sampled_from(["cycle", "self_loop", "two_roots", "head_out_of_range"]))
    tokens = [dict(t) for t in draw(trees(min_size=3 if kind == "cycle" else 2))]
    n = len(tokens)
    non_root = [t for t in tokens if t["head"] != 0]
    if kind == "cycle":  # two non-root tokens point at each other: a 2-cycle cut off from the root
        a, b = draw(st.permutations(non_root))[:2]
        a["head"], b["head"] = b["id"], a["id"]
    elif kind == "self_loop":
        a = draw(st.sampled_from(non_root))
        a["head"] = a["id"]
    elif kind == "two_roots":
        a = draw(st.sampled_from(non_root))
        a["head"], a["deprel"] = 0, "root"
    else:
        a = draw(st.sampled_from(tokens))
        a["head"] = n + draw(st.integers(1, 50))
    return tokens, kind


@settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees())
def test_render_then_parse_gives_the_tree_back(tokens):
    unit = [tokens]
    text = render_conllu(unit)
    assert text.endswith("\n\n") and text.count("\n\n") == 1
    # the CoNLL 2018 shared-task loader
    ud = load_conllu(io.StringIO(text), "<unit>", {})
    words = ud.words
    assert [int(w.columns[0]) for w in words] == [t["id"] for t in tokens]
    assert [int(w.columns[6]) for w in words] == [t["head"] for t in tokens]
    assert [w.columns[7] for w in words] == [t["deprel"] for t in tokens]
    assert [w.columns[1] for w in words] == [t["form"] for t in tokens]
    roots = [w for w in words if w.parent is None]
    assert len(roots) == 1 and int(roots[0].columns[0]) == next(t["id"] for t in tokens if t["head"] == 0)
    # conllu.parse: every published field round-trips, XPOS/DEPS/MISC are empty
    (sentence,) = conllu.parse(text)
    assert [(t["id"], t["form"], t["lemma"], t["upos"], t["head"], t["deprel"]) for t in sentence] == [
        (t["id"], t["form"], t["lemma"], t["upos"], t["head"], t["deprel"]) for t in tokens]
    feats = [conllu.parser.serialize_field(t["feats"]) if t["feats"] else None for t in sentence]
    assert feats == [t["feats"] for t in tokens]
    assert all(t["xpos"] is None and t["deps"] is None and t["misc"] is None for t in sentence)


@settings(max_examples=50, deadline=None)
@given(st.lists(trees(), min_size=1, max_size=6))
def test_valid_units_pass_every_check(units):
    triples = [(f"u{i}", [tokens], text_of(tokens)) for i, tokens in enumerate(units)]
    for _uid, unit, text in triples:
        assert check_invariants(unit, text) is None
    assert validate_units(triples) == len(triples)
    assert validation.validate_units_table(_units_table(triples)) == len(triples)


@settings(max_examples=50, deadline=None)
@given(st.lists(trees(), min_size=1, max_size=6))
def test_vectorized_renderer_matches_render_conllu(units):
    triples = [(f"u{i}", [tokens], text_of(tokens)) for i, tokens in enumerate(units)]
    rendered = conllu_units.render_units(_units_table(triples).column("tokens")).to_pylist()
    assert rendered == [render_conllu(unit) for _uid, unit, _text in triples]


@settings(max_examples=100, deadline=None)
@given(st.lists(trees(), max_size=4), mutated(), st.lists(trees(), max_size=4))
def test_invalid_trees_are_rejected_naming_the_unit(before, bad, after):
    tokens, kind = bad
    triples = ([(f"ok-{i}", [t], text_of(t)) for i, t in enumerate(before)]
               + [("bad", [tokens], text_of(tokens))]
               + [(f"ok-{len(before) + i}", [t], text_of(t)) for i, t in enumerate(after)])
    expected = {"cycle": "cycle", "self_loop": "cycle", "two_roots": "multiple roots",
                "head_out_of_range": "outside of the sentence"}[kind]
    # the §5 invariants do not look at heads: the loader is what catches these
    assert check_invariants([tokens], text_of(tokens)) is None
    with pytest.raises(UnitValidationError) as exc:
        validate_units(triples)
    assert exc.value.unit_id == "bad" and expected in exc.value.problem
    with pytest.raises(UnitValidationError) as exc:
        validation.validate_units_table(_units_table(triples))
    assert exc.value.unit_id == "bad" and expected in exc.value.problem


@pytest.mark.parametrize("field,value,message", [
    ("upos", "PUNCT", "UPOS 'PUNCT' not in the published inventory"),
    ("deprel", "nsubj:pass", "DEPREL 'nsubj:pass' not in the published inventory"),
    ("form", "Λόγος", "is not lowercase"),
    ("form", unicodedata.normalize("NFD", "λόγος"), "is not NFC"),
    ("feats", "Voice=Act|Case=Nom", "is not in canonical order"),
])
def test_invariant_violations_name_the_unit(field, value, message):
    tokens = [{"id": 1, "form": "λόγος", "lemma": "λόγος", "upos": "NOUN", "feats": None, "head": 0, "deprel": "root"},
              {"id": 2, "form": "καλός", "lemma": "καλός", "upos": "ADJ", "feats": None, "head": 1, "deprel": "nmod"}]
    tokens[1][field] = value
    text = text_of(tokens)
    good = [{"id": 1, "form": "ναί", "lemma": "ναί", "upos": "ADV", "feats": None, "head": 0, "deprel": "root"}]
    with pytest.raises(UnitValidationError) as exc:
        validate_units([("good", [good], "ναί"), ("unit-7", [tokens], text)])
    assert exc.value.unit_id == "unit-7" and message in exc.value.problem and "token 2" in exc.value.problem


#: One broken (or, for the lemma and the hyphenated compound, still valid) value per rule of
#: check_invariants: (field, value). A form change is followed by the text unless ``text`` is broken.
BREAKS = [
    ("upos", "PUNCT"), ("upos", None), ("deprel", "nsubj:pass"), ("deprel", None),
    ("feats", "Voice=Act|Case=Nom"), ("feats", "Foo=Bar"), ("feats", "Case=Nom|Case=Acc"), ("feats", ""),
    ("form", "Λόγος"), ("form", unicodedata.normalize("NFD", "λόγος")), ("form", "·"), ("form", "λό γος"),
    ("form", " λόγος"), ("form", ""), ("form", None), ("form", "καὶ"), ("form", "ab"), ("form", "λόγ’"),
    ("form", "’"), ("form", "\u0301α"), ("form", "κατά-ἕζομαι"),
    ("lemma", None), ("lemma", "κατά-ἕζομαι"), ("lemma", "α--β"), ("lemma", "-α"), ("lemma", "Α"), ("lemma", ""),
    ("text", "x"), ("text", None),
]


@settings(max_examples=100, deadline=None)
@given(st.lists(trees(max_size=6), min_size=1, max_size=5),
       st.lists(st.tuples(st.integers(0, 10), st.integers(0, 10), st.sampled_from(BREAKS)), max_size=3))
def test_column_wise_invariants_agree_with_check_invariants(units, breaks):
    """The one validator checks the §5 rules on distinct values (``conllu_units.unit_problems``); it
    must flag exactly the units the per-token reference rejects, with the reference's message."""
    texts = [text_of(tokens) for tokens in units]
    for u, k, (field, value) in breaks:
        u %= len(units)
        if field == "text":
            # a text already broken to None stays None (appending to it has no meaning)
            texts[u] = None if value is None or texts[u] is None else texts[u] + value
            continue
        units[u][k % len(units[u])][field] = value
        if field == "form":
            texts[u] = " ".join(t["form"] or "" for t in units[u])
    triples = [(f"u{i}", [tokens], text) for i, (tokens, text) in enumerate(zip(units, texts))]
    expected = [reference_invariants(unit, text) for _uid, unit, text in triples]
    assert conllu_units.unit_problems(_units_table(triples)) == {i: p for i, p in enumerate(expected) if p}
    assert [check_invariants(unit, text) for _uid, unit, text in triples] == expected
    first = next(((uid, p) for (uid, _u, _t), p in zip(triples, expected) if p), None)
    if first is None:
        assert validation.validate_units_table(_units_table(triples)) == len(triples)
    else:
        with pytest.raises(UnitValidationError) as exc:
            validation.validate_units_table(_units_table(triples))
        assert (exc.value.unit_id, exc.value.problem) == first


def test_loader_in_worker_processes_names_the_first_failing_unit():
    """Three batches of one unit, loaded by two worker processes: per batch in order, an invariant
    failure before a loader failure, as if the batches were checked one after the other."""
    ok = [{"id": 1, "form": "ναί", "lemma": "ναί", "upos": "ADV", "feats": None, "head": 0, "deprel": "root"}]
    two_roots = [dict(ok[0]), dict(ok[0], id=2)]
    upper = [dict(ok[0], form="Ναί")]
    table = _units_table([("ok", [ok], "ναί"), ("roots", [two_roots], "ναί ναί"), ("upper", [upper], "Ναί")])
    with pytest.raises(UnitValidationError) as exc:
        validation.validate_units_table(table, batch=1, workers=2)
    assert exc.value.unit_id == "roots" and "multiple roots" in exc.value.problem
    table = _units_table([("ok", [ok], "ναί"), ("upper", [upper], "Ναί"), ("roots", [two_roots], "ναί ναί")])
    with pytest.raises(UnitValidationError) as exc:
        validation.validate_units_table(table, batch=1, workers=2)
    assert exc.value.unit_id == "upper" and "is not lowercase" in exc.value.problem
    assert validation.validate_units_table(_units_table([("ok", [ok], "ναί")] * 3), batch=1, workers=2) == 3


def _units_table(triples) -> pa.Table:
    """The exporter's unit table (``row_id``, ``text``, ``tokens``) for (id, [tokens], text) triples."""
    return pa.table({"row_id": [uid for uid, _u, _t in triples], "text": [t for _u, _x, t in triples],
                     "tokens": pa.array([unit[0] for _uid, unit, _t in triples], ROW_SCHEMA)})
