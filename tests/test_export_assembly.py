"""Arrow assembly of the published columns (export/assembly.py; SPEC §9, §10) on a hand-made warehouse.

Three units stand in for ``int_eligible_sentences`` and their chosen parses' payload (text,
tokens, native_syntax) for ``int_units``, joined on the sentence_uid of the first source record
(same column types as the models): A has two upstream records (AGDT and Gorman; the Gorman parse,
sentence_uid 12, is in ``int_units`` too with other tokens and must not be published), B is a UD
Perseus unit without native syntax, C has one AGDT record, no passage and a token without lemma. ``mart_benchmark_rows`` holds a ``sentence_5`` chunk
of two constituents in the order [C, A] (not row_id order) and the ``sentence_1`` rows of B and A.
Every nested value asserted below is written out by hand from these rows.
"""

from __future__ import annotations

import unicodedata

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sphragis import runner
from sphragis.export import arrays, assembly, conllu_units, layout, metadata, validation
from sphragis.export.conllu_units import UnitValidationError, render_conllu


def nfc(s):
    return unicodedata.normalize("NFC", s) if isinstance(s, str) else s


def tok(i, form, lemma, upos, feats, head, deprel):
    return {"id": i, "form": nfc(form), "lemma": nfc(lemma), "upos": upos, "feats": feats, "head": head,
            "deprel": deprel}


def ns(i, src, relation, head):
    return {"sentence": 1, "i": i, "src": src, "relation": relation, "head": head, "repair": None}


def rec(project, source, license, path, sid, uid, passage):
    return {"project": project, "treebank_source": source, "snapshot": project, "revision": "r-" + project,
            "url": "https://example.org/" + project, "license": license, "path": path,
            "upstream_sentence_id": sid, "sentence_uid": uid, "passage": passage, "syntax_scheme": "AGDT"}


A_ID, B_ID, C_ID = "agdt:a.xml:1", "ud_perseus:b.conllu:7", "agdt:c.xml:3"
#: Their published ids, and the chunk's (mart_benchmark_rows: opaque; the row_ids are source_id)
A_PUB, B_PUB, C_PUB, CHUNK_PUB = "aaaa000000000001", "bbbb000000000002", "cccc000000000003", "dddd000000000004"
A_TOKENS = [
    tok(1, "λέγει", "λέγω", "VERB", "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin|Voice=Act", 0, "root"),
    tok(2, "ὁ", "ὁ", "PRON", "Case=Nom|Gender=Masc|Number=Sing", 3, "nmod"),
    tok(3, "ἀνήρ", "ἀνήρ", "NOUN", "Case=Nom|Gender=Masc|Number=Sing", 1, "nsubj"),
]
B_TOKENS = [tok(1, "ἦλθεν", "ἔρχομαι", "VERB", None, 0, "root")]
C_TOKENS = [tok(1, "καί", None, "ADV", None, 2, "advmod"), tok(2, "ἔφη", "φημί", "VERB", "Tense=Past", 0, "root")]
A_NATIVE = [ns(1, "1", "PRED", "0"), ns(2, "2", "ATR", "3"), ns(3, "3", "SBJ", "1")]
C_NATIVE = [ns(1, "1", "AuxY", "2"), ns(2, "2", "PRED", "0")]
A_RECORDS = [rec("agdt", "AGDT 2.1", "CC BY-SA 3.0 US", "a.xml", "1", 11, "1.1"),
             rec("gorman", "Gorman", "CC BY-SA 4.0", "g.xml", "5", 12, "1.1")]
B_RECORDS = [rec("ud_perseus", "UD Perseus", "CC BY-NC-SA 2.5", "b.conllu", "s-7", 21, None)]
C_RECORDS = [rec("agdt", "AGDT 2.1", "CC BY-SA 3.0 US", "c.xml", "3", 31, None)]

UNITS = [
    # row_id, text, tokens, cts_urn, passage, treebank_source, dedup_key, native_syntax, records, licenses
    (A_ID, "λέγει ὁ ἀνήρ", A_TOKENS, "urn:cts:greekLit:tlg0001.tlg001:1.1", "1.1", "AGDT 2.1", "λεγειοανηρ",
     A_NATIVE, A_RECORDS, ["CC BY-SA 3.0 US", "CC BY-SA 4.0"]),
    (B_ID, "ἦλθεν", B_TOKENS, "urn:cts:greekLit:tlg0002.tlg001", None, "UD Perseus", "ηλθεν", [], B_RECORDS,
     ["CC BY-NC-SA 2.5"]),
    (C_ID, "καί ἔφη", C_TOKENS, "urn:cts:greekLit:tlg0001.tlg001", None, "AGDT 2.1", "καιεφη", C_NATIVE,
     C_RECORDS, ["CC BY-SA 3.0 US"]),
]

TOKEN = pa.struct([("id", pa.int64()), ("form", pa.string()), ("lemma", pa.string()), ("upos", pa.string()),
                   ("feats", pa.string()), ("head", pa.int64()), ("deprel", pa.string())])
NATIVE = pa.struct([("sentence", pa.int32()), ("i", pa.int64()), ("src", pa.string()), ("relation", pa.string()),
                    ("head", pa.string()), ("repair", pa.string())])
RECORD_FIELDS = [("project", pa.string()), ("treebank_source", pa.string()), ("snapshot", pa.string()),
                 ("revision", pa.string()), ("url", pa.string()), ("license", pa.string()), ("path", pa.string()),
                 ("upstream_sentence_id", pa.string()), ("sentence_uid", pa.int64()), ("passage", pa.string()),
                 ("syntax_scheme", pa.string())]
UNITS_SCHEMA = pa.schema([
    ("row_id", pa.string()), ("text", pa.string()), ("tokens", pa.list_(TOKEN)), ("cts_urn", pa.string()),
    ("passage", pa.string()), ("treebank_source", pa.string()), ("dedup_key", pa.string()),
    ("native_syntax", pa.list_(NATIVE)), ("source_records", pa.list_(pa.struct(RECORD_FIELDS))),
    ("licenses", pa.list_(pa.string())),
])


def with_unit(unit, record):
    return {"unit": unit, **record}


#: A's Gorman parse (sentence_uid 12 of A_RECORDS): in int_units, not the chosen parse of any row.
GORMAN_UNIT = (12, "λέγει ἀνήρ", [A_TOKENS[0], {**A_TOKENS[2], "id": 2, "head": 1}], A_NATIVE[:2])


def build(con, units=UNITS):
    """The four tables the exporter's marts read, filled from ``units`` (``int_units`` also holds
    :data:`GORMAN_UNIT`), the seed benchmark_configs (the metadata's license counts read the
    sentence-level configurations) and the marts ``mart_export_units`` and ``mart_license_rows``
    rendered from their models."""
    runner.load_seeds(con, runner.load_project(), names={"benchmark_configs"})
    src = pa.Table.from_pylist([dict(zip(UNITS_SCHEMA.names, u)) for u in units], schema=UNITS_SCHEMA)
    con.register("units_src", src)
    con.execute("""create table int_units as
                   select source_records[1].sentence_uid as sentence_uid, text, tokens, native_syntax from units_src""")
    con.execute("insert into int_units values (?, ?, ?, ?)", list(GORMAN_UNIT))
    con.execute("""create table int_eligible_sentences as
                   select row_id, source_records[1].sentence_uid as sentence_uid, cts_urn, passage, treebank_source,
                          dedup_key, source_records, licenses
                   from units_src""")
    con.unregister("units_src")
    con.execute("create table mart_split_rows as select row_id from int_eligible_sentences")
    con.execute(f"""
        create table mart_benchmark_rows as
        select * from (values
            ('sentence_5', 'train', 1, '{CHUNK_PUB}', 'sentence_5-train-alpha-0001', ['{C_ID}', '{A_ID}'], 'Alpha',
             'Alpha One; Alpha Two', 'tlg0001.tlg001; tlg0001.tlg002', 'prose', 2, 5, ['{C_PUB}', '{A_PUB}'],
             [{{'id': '{C_PUB}', 'source_id': '{C_ID}', 'project': 'agdt', 'path': 'c.xml',
                'upstream_sentence_id': '3', 'cts_urn': 'urn:cts:greekLit:tlg0001.tlg001', 'passage': NULL::varchar}},
              {{'id': '{A_PUB}', 'source_id': '{A_ID}', 'project': 'agdt', 'path': 'a.xml',
                'upstream_sentence_id': '1', 'cts_urn': 'urn:cts:greekLit:tlg0001.tlg001:1.1', 'passage': '1.1'}}],
             ['tlg0001.tlg001', 'tlg0001.tlg002'], ['Alpha One', 'Alpha Two'], true, NULL::varchar),
            ('sentence_1', 'train', 2, '{A_PUB}', '{A_ID}', ['{A_ID}'], 'Alpha', 'Alpha One', 'tlg0001.tlg001',
             'prose', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            ('sentence_1', 'train', 1, '{B_PUB}', '{B_ID}', ['{B_ID}'], 'Beta', 'Beta One', NULL, 'verse',
             NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
        ) as t(config, split, row_order, id, source_id, row_ids, author, work, work_id, genre, chunk_size,
               chunk_target_size, constituent_ids, constituent_provenance, chunk_work_ids, chunk_works,
               chunk_is_mixed_work, held_out_source)""")
    # the two marts the exporter reads, as the build makes them (their own SQL over the tables above)
    project = runner.load_project()
    for name in ("mart_export_units", "mart_license_rows"):
        con.execute(f"create view {name} as {runner.render(project, name)}")


@pytest.fixture()
def con():
    c = duckdb.connect()
    build(c)
    yield c
    c.close()


@pytest.fixture()
def units(con):
    return assembly.fetch_units(con)


def assembled(con, units, cfg):
    return assembly.assemble_rows(assembly.config_rows(con, cfg, "train"), units, layout.columns_of(cfg))


def test_chunk_row_lists_units_in_constituent_order(con, units):
    row = assembled(con, units, "sentence_5").to_pylist()[0]
    assert (row["id"], row["source_id"]) == (CHUNK_PUB, "sentence_5-train-alpha-0001")
    assert row["text"] == ["καί ἔφη", "λέγει ὁ ἀνήρ"]
    assert row["conllu"] == [[C_TOKENS], [A_TOKENS]]
    assert row["cts_urn"] == ["urn:cts:greekLit:tlg0001.tlg001", "urn:cts:greekLit:tlg0001.tlg001:1.1"]
    assert row["passage"] == [None, "1.1"]
    assert row["treebank_source"] == ["AGDT 2.1", "AGDT 2.1"]
    assert row["dedup_key"] == ["καιεφη", "λεγειοανηρ"]
    assert row["native_syntax"] == [C_NATIVE, A_NATIVE]
    # C's record is unit 0, A's two records (in their int_eligible_sentences order) unit 1
    assert row["source_records"] == [with_unit(0, C_RECORDS[0]), with_unit(1, A_RECORDS[0]),
                                     with_unit(1, A_RECORDS[1])]
    assert row["licenses"] == ["CC BY-SA 3.0 US", "CC BY-SA 4.0"]
    assert row["constituent_ids"] == [C_PUB, A_PUB]
    assert [(p["id"], p["source_id"]) for p in row["constituent_provenance"]] == [(C_PUB, C_ID), (A_PUB, A_ID)]
    assert row["chunk_is_mixed_work"] is True and row["chunk_size"] == 2


def test_atomic_rows_follow_row_order_with_one_unit_each(con, units):
    t = assembled(con, units, "sentence_1")
    assert t.column_names == list(layout.columns_of("sentence_1"))
    b, a = t.to_pylist()
    assert (b["id"], a["id"]) == (B_PUB, A_PUB)
    assert (b["source_id"], a["source_id"]) == (B_ID, A_ID)
    assert b["text"] == ["ἦλθεν"] and b["conllu"] == [[B_TOKENS]]
    assert b["native_syntax"] == [[]] and b["passage"] == [None]
    assert b["source_records"] == [with_unit(0, B_RECORDS[0])]
    assert b["licenses"] == ["CC BY-NC-SA 2.5"] and b["split"] == "train"
    assert a["source_records"] == [with_unit(0, r) for r in A_RECORDS]
    assert a["licenses"] == ["CC BY-SA 3.0 US", "CC BY-SA 4.0"]


def test_nested_types_are_the_published_ones(con, units):
    t = assembled(con, units, "sentence_5")
    assert t.column_names == list(layout.columns_of("sentence_5"))
    conllu = t.schema.field("conllu").type
    assert conllu.value_type.value_type.value_type == TOKEN
    assert t.schema.field("text").type.value_type == pa.string()
    assert t.schema.field("native_syntax").type.value_type.value_type == NATIVE
    assert t.schema.field("source_records").type.value_type == pa.struct([("unit", pa.int32()), *RECORD_FIELDS])
    assert t.schema.field("licenses").type.value_type == pa.string()


def test_an_unknown_unit_is_an_export_error(con):
    units = assembly.fetch_units(con).filter(pa.compute.not_equal(pa.compute.field("row_id"), A_ID))
    with pytest.raises(assembly.ExportError, match=A_ID):
        assembled(con, units, "sentence_5")


def test_parquet_is_byte_identical_and_round_trips(con, units, tmp_path):
    first, second = tmp_path / "a.parquet", tmp_path / "b.parquet"
    assert assembly.write_config(con, units, "sentence_5", "train", first) == (1, 1)
    assert assembly.write_config(con, units, "sentence_5", "train", second) == (1, 1)
    assert first.read_bytes() == second.read_bytes()
    assert pq.read_table(first).to_pylist() == assembled(con, units, "sentence_5").to_pylist()


def test_render_units_equals_render_conllu(units):
    rendered = dict(zip(units.column("row_id").to_pylist(), conllu_units.render_units(units.column("tokens")).to_pylist()))
    assert list(rendered) == [A_ID, C_ID, B_ID]  # fetch_units orders by row_id
    for row_id, _, tokens, *_ in UNITS:
        assert rendered[row_id] == render_conllu([tokens])
    # C: the missing lemma and FEATS render as '_'
    assert rendered[C_ID] == ("1\tκαί\t_\tADV\t_\t_\t2\tadvmod\t_\t_\n"
                              "2\tἔφη\tφημί\tVERB\t_\tTense=Past\t0\troot\t_\t_\n\n")


def test_validation_accepts_the_units_and_names_a_broken_one(con, units):
    assert validation.validate_published_units(con, units) == 3
    assert validation.validate_units_table(units, batch=2) == 3
    # two roots in C: the CoNLL 2018 loader rejects it, traced back to C across batch boundaries
    two_roots = [tok(1, "καί", None, "ADV", None, 0, "root"), C_TOKENS[1]]
    bad = duckdb.connect()
    build(bad, [UNITS[0], UNITS[1], (C_ID, "καί ἔφη", two_roots, *UNITS[2][3:])])
    with pytest.raises(UnitValidationError) as err:
        validation.validate_units_table(assembly.fetch_units(bad), batch=2)
    assert err.value.unit_id == C_ID and "CoNLL 2018 loader" in err.value.problem
    # an upper-case form breaks a SPEC §5 invariant (check_invariants) of A
    upper = [dict(A_TOKENS[0], form="Λέγει"), *A_TOKENS[1:]]
    bad = duckdb.connect()
    build(bad, [(A_ID, "Λέγει ὁ ἀνήρ", upper, *UNITS[0][3:]), UNITS[1], UNITS[2]])
    with pytest.raises(UnitValidationError) as err:
        validation.validate_published_units(bad)
    assert err.value.unit_id == A_ID and "lowercase" in err.value.problem


def test_licenses_md_counts_rows_of_the_atomic_configs(con):
    text = metadata.licenses_md(con)
    # _1 rows: A (AGDT + Gorman records) and B (UD Perseus); C is only in the chunk
    lines = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| ")}
    assert lines["| AGDT 2.1 (agdt)"].endswith("| 1 |")
    assert lines["| Gorman (gorman)"].endswith("| 1 |")
    assert lines["| UD Perseus (ud-perseus)"].endswith("| 1 |")
    assert lines["| UD PROIEL (ud-proiel)"].endswith("| 0 |")


def test_loader_errors_are_traced_to_their_unit():
    # three one-sentence units: A on lines 1-4 (3 tokens + blank), B on 5-6, C on 7-9
    starts = [1, 5, 7]
    assert conllu_units.unit_at("There are multiple roots in the sentence that ends at 9", starts) == 2
    assert conllu_units.unit_at("HEAD '5' points outside of the sentence that ends at line 6", starts) == 1
    assert conllu_units.unit_at("There is a cycle in the sentence that ends at line 4", starts) == 0
    assert conllu_units.unit_at("Incorrect word ID '3' for word 'x', expected '2' at line 8", starts) == 2
    assert conllu_units.unit_at("Cannot parse HEAD 'x' at line 5", starts) == 1
    assert conllu_units.unit_at("The CoNLL-U file does not end with empty line", starts) == 2


def test_an_empty_split_keeps_the_published_schema(con, units):
    empty = assembly.assemble_rows(assembly.config_rows(con, "sentence_5", "test"), units, layout.columns_of("sentence_5"))
    full = assembled(con, units, "sentence_5")
    assert empty.num_rows == 0 and empty.schema == full.schema


def test_loader_task_is_the_rendered_units_with_their_first_lines(units):
    """One loader document per batch: the units rendered one after the other, and the line each
    starts on (A: 3 tokens + blank = lines 1-4, C: 2 tokens = 5-7, B: 1 token = 8-9)."""
    doc, starts = validation._loader_task(conllu_units.render_units(units.column("tokens")))
    assert doc == render_conllu([A_TOKENS]) + render_conllu([C_TOKENS]) + render_conllu([B_TOKENS])
    assert starts == [1, 5, 8]
    # a batch that is a slice of the units starts counting at its own first line
    doc, starts = validation._loader_task(conllu_units.render_units(units.column("tokens").slice(1, 2)))
    assert doc == render_conllu([C_TOKENS]) + render_conllu([B_TOKENS]) and starts == [1, 4]
    assert validation._loader_task(conllu_units.render_units(units.column("tokens").slice(0, 0))) == ("", [])


def test_a_single_chunk_column_is_used_without_a_copy(units):
    """assemble_rows reads the units' columns once per configuration split: a one-chunk column is
    used as it is (ChunkedArray.combine_chunks copies even a single chunk)."""
    tokens = units.column("tokens")
    assert tokens.num_chunks == 1
    assert arrays.one_array(tokens).buffers()[1].address == tokens.chunk(0).buffers()[1].address
