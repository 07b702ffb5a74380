"""Warehouse annotations as CoNLL-U (SPEC §3–§5, §12).

Two layers:

* A tiny hand-made source tree (one AGDT file, UD Perseus dev/test files), ingested by the real
  loader and built by the runner; every expected line below follows from the rows written here
  and the SPEC rules named beside it.
* Real data (``real_warehouse``, skipped without ``../shared/sources``; or, as a development aid,
  ``SPHRAGIS_TEST_WAREHOUSE`` naming an already built warehouse): the AGDT native conversion of
  the UD Perseus test overlap against UD Perseus itself, with known tokens checked against the
  upstream UD file.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import duckdb
import pytest
from udtools.udeval import load_conllu

from conftest import pinned_source_file
from sphragis import cli, config, runner
from sphragis.evaluation import annotations, folds
from sphragis.evaluation.drift import decompose
from sphragis.evaluation.score import parse_sentences, score
from sphragis.ingest import load, sources

ATH = "tlg0008.tlg001.perseus-grc1.12.tb.xml"  # Athenaeus 12 (works registry: prose, Athenaeus)

# --------------------------------------------------------------------------------------------
# The tiny source tree
# --------------------------------------------------------------------------------------------

# AGDT sentences: (id, [(id, form, lemma, postag, relation, head, artificial)])
AGDT = [
    ("1", [("1", "ὁ", "ὁ", "l-s---mn-", "ATR", "2", False),
           ("2", "ἀνὴρ", "ἀνήρ1", "n-s---mn-", "SBJ", "3", False),   # homograph digit (SPEC §3)
           ("3", "λέγει", "λέγω", "v3spia---", "PRED", "0", False),
           ("4", "·", "·", "u--------", "AuxK", "0", False),
           ("5", "[0]", "", "v3spia---", "ADV", "3", True)]),        # artificial node: removed
    # γάρ is mis-tagged as punctuation here (tag u), an adverb in UD: after punctuation removal
    # the tokenizations differ (sentence C)
    ("2", [("1", "οὐ", "οὐ", "d--------", "AuxZ", "3", False),
           ("2", "γάρ", "γάρ", "u--------", "AuxY", "3", False),
           ("3", "φησιν", "φημί", "v3spia---", "PRED", "0", False),
           ("4", ".", ".", "u--------", "AuxK", "0", False)]),
    ("3", [("1", "πάντα", "πᾶς", "a-p---nn-", "SBJ", "2", False),
           ("2", "ῥεῖ", "ῥέω", "v3spia---", "PRED", "0", False),
           ("3", ".", ".", "u--------", "AuxK", "0", False)]),
]
# UD Perseus sentences: (sent_id, [(form, lemma, upos, xpos, feats, head, deprel)]). A resolves to
# AGDT 1; C resolves to AGDT 2 by forms with punctuation, but AGDT tags γάρ as punctuation; U is
# unresolved.
UD_TEST = [
    (f"{ATH}@1", [("ὁ", "ὁ", "DET", "l-s---mn-", "Case=Nom|Gender=Masc|Number=Sing", 2, "det"),    # A
                  ("ἀνὴρ", "ἀνήρ", "NOUN", "n-s---mn-", "Case=Nom|Gender=Masc|Number=Sing", 3, "nsubj"),
                  ("λέγει", "λέγω", "VERB", "v3spia---",
                   "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin|Voice=Act", 0, "root"),
                  ("·", "·", "PUNCT", "u--------", "_", 3, "punct")]),
    (f"{ATH}@2", [("οὐ", "οὐ", "ADV", "d--------", "Polarity=Neg", 3, "advmod"),                # C
                  ("γάρ", "γάρ", "ADV", "d--------", "_", 3, "advmod"),
                  ("φησιν", "φημί", "VERB", "v3spia---",
                   "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin|Voice=Act", 0, "root"),
                  (".", ".", "PUNCT", "u--------", "_", 3, "punct")]),
    # U: no AGDT sentence has these forms
    (f"{ATH}@9", [("οὐδὲν", "οὐδείς", "PRON", "p-s---na-", "Case=Acc|Gender=Neut|Number=Sing", 0, "root"),
                  (".", ".", "PUNCT", "u--------", "_", 1, "punct")]),
]
UD_DEV = [
    (f"{ATH}@3", [("πάντα", "πᾶς", "ADJ", "a-p---nn-", "Case=Nom|Gender=Neut|Number=Plur", 2, "nsubj"),
                  ("ῥεῖ", "ῥέω", "VERB", "v3spia---",
                   "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin|Voice=Act", 0, "root"),
                  (".", ".", "PUNCT", "u--------", "_", 2, "punct")]),
]


def _xml() -> str:
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<treebank xml:lang="grc" format="aldt" version="1.5">']
    for sid, words in AGDT:
        out.append(f'  <sentence id="{sid}" document_id="urn:cts:greekLit:tlg0008.tlg001.perseus-grc1" '
                   f'subdoc="12.{sid}">')
        for wid, form, lemma, postag, rel, head, art in words:
            extra = f' insertion_id="000{wid}e" artificial="elliptic"' if art else ""
            out.append(f'    <word id="{wid}"{extra} form="{form}" lemma="{lemma}" postag="{postag}" '
                       f'relation="{rel}" head="{head}"/>')
        out.append("  </sentence>")
    return "\n".join(out + ["</treebank>"]) + "\n"


def _conllu(sentences) -> str:
    out = [f"# newdoc id = {ATH}"]
    for sid, words in sentences:
        out += [f"# sent_id = {sid}", f"# text = {' '.join(w[0] for w in words)}"]
        for i, (form, lemma, upos, xpos, feats, head, deprel) in enumerate(words, start=1):
            out.append(f"{i}\t{form}\t{lemma}\t{upos}\t{xpos}\t{feats}\t{head}\t{deprel}\t_\t_")
        out.append("")
    return "\n".join(out) + "\n"


def build_tiny(base: Path) -> tuple[Path, Path]:
    """Write the tiny tree under ``base/data``, ingest it and build the models the annotations
    read; returns (data dir, warehouse path)."""
    data, wh = base / "data", base / "wh.duckdb"
    files = {f"agdt/v2.1/Greek/texts/{ATH}": _xml(),
             "ud-perseus/grc_perseus-ud-test.conllu": _conllu(UD_TEST),
             "ud-perseus/grc_perseus-ud-dev.conllu": _conllu(UD_DEV)}
    for rel, text in files.items():
        (data / rel).parent.mkdir(parents=True, exist_ok=True)
        (data / rel).write_text(text, encoding="utf-8")
    roots = {name: data / name for name in ("agdt", "ud-perseus")}
    snaps = [s for s in config.snapshots() if s["name"] in roots]
    found = sources.discover(roots, snaps)
    con = duckdb.connect(str(wh))
    try:
        load.load(con, found, load.parse_all(found, workers=1))
        runner.run(con, runner.load_project(),
                   select=["mart_ud_perseus_agdt_overlap", "int_units", "int_curated_sentences"])
    finally:
        con.close()
    return data, wh


@pytest.fixture(scope="module")
def tiny_env(tmp_path_factory):
    return build_tiny(tmp_path_factory.mktemp("tiny_annotations"))


@pytest.fixture()
def tiny(tiny_env):
    con = duckdb.connect(str(tiny_env[1]), read_only=True)
    yield con
    con.close()


def _tokens(block: str) -> list[str]:
    return [ln for ln in block.split("\n") if not ln.startswith("#")]


# --------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------


def test_parse_names():
    n = annotations.parse_name("native:agdt@ud_perseus-test")
    assert (n.view, n.project, n.fold.name, n.via_overlap) == ("native", "agdt", "ud_perseus-test", True)
    n = annotations.parse_name("source:ud_proiel-dev")
    assert (n.view, n.project, n.fold.file, n.via_overlap) == ("source", "ud_proiel", "grc_proiel-ud-dev.conllu",
                                                               False)
    n = annotations.parse_name("published:gorman")
    assert (n.project, n.fold) == ("gorman", None)
    assert annotations.is_annotation_name("published:x") and not annotations.is_annotation_name("ud_perseus-test")
    assert not annotations.is_annotation_name("c:/data/x.conllu")


@pytest.mark.parametrize(("name", "message"), [
    ("native:ud_perseus-test", "ud_perseus is a UD treebank (use source:ud_perseus-test)"),
    ("source:agdt", "agdt is an AGDT-lineage treebank (use native:agdt)"),
    ("native:gorman@ud_perseus-test", "overlap selection 'gorman@ud_perseus-test' is not defined; defined: "
                                      "agdt@ud_perseus-dev, agdt@ud_perseus-test"),
    ("published:ud_perseus-train", "unknown selection 'ud_perseus-train'"),
    ("gold:ud_perseus-test", "expected VIEW:SELECTION with VIEW one of published, native, source"),
])
def test_bad_names_are_clear_errors(name, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        annotations.parse_name(name)


# --------------------------------------------------------------------------------------------
# Rendering on the tiny warehouse
# --------------------------------------------------------------------------------------------


def test_native_conversion_lines(tiny):
    ann = annotations.render(tiny, "native:agdt@ud_perseus-test")
    assert ann.sent_ids == (f"{ATH}@1",)
    assert ann.sentences[0].block.split("\n") == [
        f"# sent_id = {ATH}@1",  # the UD sentence's id, so that it aligns with the fold
        f"# source_sentence = agdt:v2.1/Greek/texts/{ATH}#1",
        "# text = ὁ ἀνὴρ λέγει",
        # article: tag l → PRON, ATR of an article → det (SPEC §3, §4)
        "1\tὁ\tὁ\tPRON\tl-s---mn-\tCase=Nom|Gender=Masc|Number=Sing\t2\tdet\t_\t_",
        # homograph digit stripped from the lemma (SPEC §3)
        "2\tἀνὴρ\tἀνήρ\tNOUN\tn-s---mn-\tCase=Nom|Gender=Masc|Number=Sing\t3\tnsubj\t_\t_",
        # present: Tense=Pres|Aspect=Imp, VerbForm=Fin with Mood (SPEC §3); the artificial node
        # (id 5) and the punctuation (id 4) are gone (SPEC §4-§5)
        "3\tλέγει\tλέγω\tVERB\tv3spia---\tAspect=Imp|Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin|"
        "Voice=Act\t0\troot\t_\t_",
    ]


def test_native_skips_with_reasons(tiny):
    ann = annotations.render(tiny, "native:agdt@ud_perseus-test")
    assert [s.to_dict() for s in ann.skipped] == [
        {"sent_id": f"{ATH}@2",
         "reason": "tokenization differs from the UD sentence at token 2: 'φησιν' vs 'γάρ' (2 vs 3 tokens)"},
        {"sent_id": f"{ATH}@9", "reason": "no AGDT sentence with identical forms"},
    ]


def test_source_lines_keep_the_ud_annotation(tiny):
    ann = annotations.render(tiny, "source:ud_perseus-test")
    assert ann.sent_ids == (f"{ATH}@1", f"{ATH}@2", f"{ATH}@9") and ann.skipped == ()
    assert _tokens(ann.sentences[0].block) == [
        "1\tὁ\tὁ\tDET\tl-s---mn-\tCase=Nom|Gender=Masc|Number=Sing\t2\tdet\t_\t_",
        "2\tἀνὴρ\tἀνήρ\tNOUN\tn-s---mn-\tCase=Nom|Gender=Masc|Number=Sing\t3\tnsubj\t_\t_",
        "3\tλέγει\tλέγω\tVERB\tv3spia---\tMood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin|Voice=Act"
        "\t0\troot\t_\t_",
    ]
    # γάρ (ADV in UD) is kept, the final stop removed; Polarity (not a published type) is kept
    assert _tokens(ann.sentences[1].block) == [
        "1\tοὐ\tοὐ\tADV\td--------\tPolarity=Neg\t3\tadvmod\t_\t_",
        "2\tγάρ\tγάρ\tADV\td--------\t_\t3\tadvmod\t_\t_",
        "3\tφησιν\tφημί\tVERB\tv3spia---\tMood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin|Voice=Act"
        "\t0\troot\t_\t_",
    ]


def test_published_units_are_the_model_facing_rows(tiny):
    ann = annotations.render(tiny, "published:ud_perseus-test")
    # SPEC §5: DET → PRON, det → nmod, FEATS re-derived from the tag (Aspect), XPOS not published
    assert _tokens(ann.sentences[0].block)[0] == "1\tὁ\tὁ\tPRON\t_\tCase=Nom|Gender=Masc|Number=Sing\t2\tnmod\t_\t_"
    assert _tokens(ann.sentences[0].block)[2].split("\t")[5].startswith("Aspect=Imp|")
    row = tiny.execute("""select u.tokens from int_units u join int_sentences s using (sentence_uid)
                          where s.project = 'ud_perseus' and s.upstream_sentence_id = ?""",
                       [f"{ATH}@1"]).fetchone()[0]
    assert [ln.split("\t")[1] for ln in _tokens(ann.sentences[0].block)] == [t["form"] for t in row]
    # the AGDT side of the overlap renders to the same published forms
    agdt = annotations.render(tiny, "published:agdt@ud_perseus-test")
    assert [s.sent_id for s in agdt.skipped] == [f"{ATH}@2", f"{ATH}@9"]
    assert _tokens(agdt.sentences[0].block) == _tokens(ann.sentences[0].block)


def test_rendered_text_reparses_with_the_evaluator(tiny):
    for name in ("native:agdt@ud_perseus-test", "source:ud_perseus-test", "published:ud_perseus-dev",
                 "native:agdt", "published:agdt"):
        ann = annotations.render(tiny, name)
        doc = load_conllu(io.StringIO(ann.text), name, {})
        assert len(doc.words) == ann.words
        assert [s.sent_id for s in parse_sentences(ann.text)] == list(ann.sent_ids)


def test_project_selection_names_xml_sentences_by_file(tiny):
    ann = annotations.render(tiny, "native:agdt")
    assert ann.sent_ids == (f"{ATH}@1", f"{ATH}@2", f"{ATH}@3")
    # γάρ, tagged u in the AGDT file, is punctuation for the warehouse (SPEC §3, §5)
    assert [ln.split("\t")[1] for ln in _tokens(ann.sentences[1].block)] == ["οὐ", "φησιν"]


def test_align_keeps_common_sentences_in_a_order(tiny):
    a = annotations.render(tiny, "source:ud_perseus-test")
    b = annotations.render(tiny, "native:agdt@ud_perseus-test")
    a2, b2, dropped = annotations.align(a, b)
    assert a2.sent_ids == b2.sent_ids == (f"{ATH}@1",)
    assert dropped == [
        {"side": "a", "sent_id": f"{ATH}@2", "reason": "not in native:agdt@ud_perseus-test: tokenization "
         "differs from the UD sentence at token 2: 'φησιν' vs 'γάρ' (2 vs 3 tokens)"},
        {"side": "a", "sent_id": f"{ATH}@9",
         "reason": "not in native:agdt@ud_perseus-test: no AGDT sentence with identical forms"}]
    # the decomposition of the aligned pair: DET→PRON, and Aspect only in the native FEATS
    r = decompose(a2.text, b2.text)
    assert (r.words, r.upos_errors, r.ufeats_errors, r.attachment_errors, r.label_only_errors) == (3, 1, 1, 0, 0)
    assert r.b_only_types == ("Aspect",) and r.upos_confusions[0].a == "DET"


def test_bucket_map_of_an_annotation(tiny):
    ann = annotations.render(tiny, "native:agdt@ud_perseus-test")
    assert annotations.bucket_map(tiny, ann, "author") == {f"{ATH}@1": "Athenaeus"}


def test_render_needs_the_warehouse_models(tmp_path):
    con = duckdb.connect(str(tmp_path / "empty.duckdb"))
    with pytest.raises(RuntimeError, match="the warehouse has no int_sentences"):
        annotations.render(con, "native:agdt@ud_perseus-test")
    con.close()


# --------------------------------------------------------------------------------------------
# Command line on the tiny warehouse
# --------------------------------------------------------------------------------------------


def _run(capsys, *argv):
    rc = cli.main(["eval", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture()
def tiny_cli(tiny_env, monkeypatch):
    data, wh = tiny_env
    monkeypatch.setenv("SPHRAGIS_DATA", str(data))
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(wh))
    return data, wh


def test_cli_drift_on_named_annotations(capsys, tmp_path, tiny_cli):
    rc, out, _ = _run(capsys, "drift", "--a", "source:ud_perseus-test", "--b", "native:agdt@ud_perseus-test",
                      "--json", str(tmp_path / "d.json"))
    assert rc == 0
    lines = out.splitlines()
    assert lines[:3] == [
        # counts after the alignment: what is compared, and everything left out
        "a: source:ud_perseus-test (warehouse: 1 sentences, 3 words; 2 skipped)",
        "b: native:agdt@ud_perseus-test (warehouse: 1 sentences, 3 words; 2 skipped)",
        "compared on the common sentences: 2 sentence(s) left out"]
    assert f"  {ATH}@9: not in native:agdt@ud_perseus-test: no AGDT sentence with identical forms" in lines
    assert "UPOS 66.67  UFeats 66.67  UAS 100.00  LAS 100.00" in out
    doc = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    assert doc["sentences"] == 1 and [s["sent_id"] for s in doc["skipped"]["a"]] == [f"{ATH}@2", f"{ATH}@9"]
    assert [s["sent_id"] for s in doc["skipped"]["b"]] == [f"{ATH}@2", f"{ATH}@9"]


def test_cli_score_named_annotations_and_buckets(capsys, tmp_path, tiny_cli):
    rc, out, _ = _run(capsys, "score", "--gold", "source:ud_perseus-test", "--pred", "native:agdt@ud_perseus-test",
                      "--bootstrap", "0", "--by", "author", "--json", str(tmp_path / "s.json"))
    assert rc == 0
    m = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert {k: m["metrics"][k]["f1"] for k in ("UPOS", "XPOS", "UFeats", "Lemma", "UAS", "LAS")} == {
        "UPOS": 66.67, "XPOS": 100.0, "UFeats": 66.67, "Lemma": 100.0, "UAS": 100.0, "LAS": 100.0}
    assert list(m["buckets"]) == ["Athenaeus"] and m["gold"] == "source:ud_perseus-test"


def test_cli_score_annotation_against_itself_and_a_file(capsys, tmp_path, tiny_cli):
    rc, out, _ = _run(capsys, "render", "source:ud_perseus-test", "--out", str(tmp_path / "src.conllu"))
    assert rc == 0
    text = (tmp_path / "src.conllu").read_text(encoding="utf-8")
    assert text.startswith(f"# sent_id = {ATH}@1\n") and text.count("\n\n") == 3
    rc, out, _ = _run(capsys, "score", "--gold", "source:ud_perseus-test", "--pred", str(tmp_path / "src.conllu"),
                      "--bootstrap", "9")
    assert rc == 0 and "LAS       100.00  [100.00, 100.00]" in out
    # a file is not aligned: the native annotation lacks two sentences of the fold
    rc, _, err = _run(capsys, "score", "--gold", str(tmp_path / "src.conllu"), "--pred", "native:agdt@ud_perseus-test")
    assert rc == 1 and "gold has 3 sentences, pred has 1" in err


def test_cli_render_to_stdout_reports_skips(capsys, tiny_cli):
    rc, out, err = _run(capsys, "render", "native:agdt@ud_perseus-test")
    assert rc == 0 and out == annotations.render(duckdb.connect(str(tiny_cli[1]), read_only=True),
                                                 "native:agdt@ud_perseus-test").text
    assert err.startswith("native:agdt@ud_perseus-test: 1 sentences, 3 words, 2 skipped")
    assert f"  skipped {ATH}@9: no AGDT sentence with identical forms" in err


def test_cli_bad_annotation_name_fails_before_the_warehouse(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(tmp_path / "none.duckdb"))
    rc, _, err = _run(capsys, "drift", "--a", "native:ud_perseus-test", "--b", "source:ud_perseus-test")
    assert rc == 1 and err.startswith("sphragis eval: error: --a: native:ud_perseus-test: the native view")
    rc, _, err = _run(capsys, "drift", "--a", "native:agdt@ud_perseus-test", "--b", "source:ud_perseus-test")
    assert rc == 1 and err.startswith("sphragis eval: error: no warehouse at")


def test_eval_help_documents_the_names(capsys):
    with pytest.raises(SystemExit):
        cli.main(["eval", "--help"])
    out = capsys.readouterr().out
    for text in ("VIEW:SELECTION", "native:agdt@ud_perseus-test", "agdt@ud_perseus-dev", "published", "source"):
        assert text in out


# --------------------------------------------------------------------------------------------
# Real data
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_wh(built_warehouse):
    """The real warehouse, or the built warehouse that ``SPHRAGIS_TEST_WAREHOUSE`` names
    (conftest ``built_warehouse``)."""
    return built_warehouse


@pytest.fixture(scope="module")
def real_pair(real_wh):
    return (annotations.render(real_wh, "source:ud_perseus-test"),
            annotations.render(real_wh, "native:agdt@ud_perseus-test"))


def _upstream_test_block(n: int) -> list[list[str]]:
    """Token lines (split into columns) of sentence ``n`` (1-based) of the pinned UD Perseus test file."""
    text = pinned_source_file("ud-perseus", "grc_perseus-ud-test.conllu").decode("utf-8")
    block = text.split("\n\n")[n - 1]
    return [ln.split("\t") for ln in block.split("\n") if ln and not ln.startswith("#")]


@pytest.mark.integration
def test_real_native_covers_every_resolved_test_sentence(real_wh, real_pair):
    source, native = real_pair
    resolved = real_wh.execute("select count(*) from mart_ud_perseus_agdt_overlap "
                               "where fold = 'test' and resolved").fetchone()[0]
    assert resolved == 1306
    # every resolved sentence has the UD tokenization after punctuation removal on the pinned
    # sources: no mismatch to document, so nothing is skipped
    assert native.skipped == ()
    assert len(native.sentences) == resolved - len(native.skipped)
    assert source.sent_ids == native.sent_ids and len(source.sentences) == 1306
    assert [s.sent_id for s in parse_sentences(native.text)] == list(source.sent_ids)
    # UD Perseus test has no multiword tokens: its words minus PUNCT are the rendered words
    n_punct = real_wh.execute("""
        select count(*) filter (where m.upos_source <> 'PUNCT') from int_token_morphology m
        join int_sentences s using (sentence_uid) where s.path = 'grc_perseus-ud-test.conllu'""").fetchone()[0]
    assert source.words == native.words == n_punct


@pytest.mark.integration
def test_real_known_token_against_the_upstream_file(real_pair):
    source, native = real_pair
    # sentence 1 (Athenaeus 12, AGDT sentence 197); θρεψαμένοις is upstream word 9, no
    # punctuation precedes it, so it keeps index 9
    upstream = _upstream_test_block(1)
    up = next(c for c in upstream if c[1] == "θρεψαμένοις")
    src, nat = (next(c for c in (ln.split("\t") for ln in _tokens(ann.sentences[0].block))
                     if c[1] == "θρεψαμένοις") for ann in (source, native))
    assert [src[k] for k in (0, 1, 3, 4, 5, 7)] == [up[k] for k in (0, 1, 3, 4, 5, 7)]
    assert "\t".join(src) == ("9\tθρεψαμένοις\tτρέφω\tVERB\tv-papmmd-\t"
                              "Case=Dat|Gender=Masc|Number=Plur|Tense=Past|VerbForm=Part|Voice=Mid\t6\tadvcl\t_\t_")
    # the native conversion: aorist participle → Tense=Past|Aspect=Perf, VerbForm=Part, no Mood (SPEC §3)
    assert "\t".join(nat) == ("9\tθρεψαμένοις\tτρέφω\tVERB\tv-papmmd-\t"
                              "Aspect=Perf|Case=Dat|Gender=Masc|"
                              "Number=Plur|Tense=Past|VerbForm=Part|Voice=Mid\t6\tadvcl\t_\t_")


@pytest.mark.integration
def test_real_drift_reflects_the_spec_merges(real_pair):
    source, native = real_pair
    r = decompose(source.text, native.text)
    assert r.words == source.words and r.sentences == 1306
    # the native UPOS is the SPEC §3 mapping: every UPOS disagreement involving a UD-only tag
    # is the merge the SPEC names
    merges = {"DET": "PRON", "CCONJ": "ADV", "SCONJ": "ADV", "AUX": "VERB", "PROPN": "NOUN", "PART": "ADV"}
    assert {c.a for c in r.upos_confusions} >= {"DET", "CCONJ", "AUX"}
    for c in r.upos_confusions:
        if c.a in merges:
            assert c.b == merges[c.a]
    # SPEC §3 "Voice: e Mid,Pass": UD Perseus writes Mid, so Voice is a shared type that diverges
    voice = next(f for f in r.feature_agreement if f.feature == "Voice")
    assert voice.a_words == voice.b_words and voice.same < voice.union_words
    # identical forms and lemma normalization on both sides: lemmas nearly always agree
    s = score(source.text, native.text, bootstrap=0)
    assert s.metrics["Lemmas"].correct >= s.metrics["Lemmas"].gold_total - 5


@pytest.mark.integration
def test_real_aspect_agreement_per_definition(real_pair):
    """Aspect on UD Perseus test vs its AGDT native conversion is 100.0 % (676/676) over
    the gold words with Aspect (seed 001's definition) and 18.52 % (676/3,650) over the words
    where either side has it: the native conversion adds Aspect to every present and aorist."""
    source, native = real_pair
    for per_type, want in (("gold", 100.0), ("union", 18.52)):
        r = decompose(source.text, native.text, per_type=per_type)
        asp = next(f for f in r.feature_agreement if f.feature == "Aspect")
        assert (asp.same, asp.a_words, asp.union_words) == (676, 676, 3650)
        assert round(asp.agreement, 2) == want
        assert r.scheme_absent_types == () and r.b_outside_scheme_types == ()


@pytest.mark.integration
def test_real_published_fold_units(real_wh):
    ann = annotations.render(real_wh, "published:ud_perseus-test")
    assert len(ann.sentences) == 1306 and ann.skipped == ()
    doc = load_conllu(io.StringIO(ann.text), "published", {})
    assert {w.columns[3] for w in doc.words} <= {"NOUN", "VERB", "ADJ", "PRON", "ADV", "ADP", "NUM", "INTJ", "X"}
    assert folds.known_folds()["ud_perseus-test"].file in ann.sentences[0].block
