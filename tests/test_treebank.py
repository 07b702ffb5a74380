"""The leakage-clean training treebank (seed 001 "Leakage controls").

* Fixture tree: the real cuts of ``tests/fixtures/sources`` (AGDT Thucydides 1, Gorman Lysias 1,
  Pedalion Acharnians, Harrington Life of Aesop, UD PROIEL dev = Herodotus) laid out as the
  pinned snapshots, plus small folds and files made from those cuts' own forms so that each
  exclusion rule has one sentence it must catch: a UD Perseus dev fold holding AGDT sentence 1
  (``ud_perseus_source``), a UD PROIEL test fold holding Gorman sentence 1 without punctuation
  and with acute for grave (``fold_text_match`` by the SPEC §7 key only), a Gorman Herodotus file
  (``fold_work``: PROIEL is Herodotus), a Gorman Antiphon file repeating AGDT sentence 2
  (``duplicate``) and holding a punctuation-only sentence (``no_word``); Harrington's anonymous
  Life of Aesop for ``curation``. The models are built by the runner; options other than the
  defaults go through :func:`sphragis.export.treebank_options.select` (temporary tables), as the CLI does.
* Real data (``real_warehouse``, skipped without ``../shared/sources``): the default export,
  re-checked against the UD fold files themselves, independently of the marts.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from pathlib import Path

import conllu
import duckdb
import pytest
from lxml import etree

from sphragis import config, runner
from sphragis.evaluation import folds
from sphragis.export import treebank, treebank_checks, treebank_options
from sphragis.ingest import load, sources
from test_atomic import FIXTURE_LAYOUT, FIXTURE_SOURCES, tiny_sources

AGDT_FILE = "tlg0003.tlg001.perseus-grc1.1.tb.xml"
GORMAN_FILE = "Lysias 1 bu1.xml"
HDT_FILE = "hdt 1 1-19 bu3 2019.xml"         # registry: Gorman, Herodotus, Histories
ANTIPHON_FILE = "Antiphon 5 bu2.xml"          # registry: Gorman, Antiphon 5
LAYOUT = {k: v for k, v in FIXTURE_LAYOUT.items()
          if v[0] in ("agdt", "gorman", "pedalion", "harrington", "ud-proiel")}


def fixture_sentences(name: str) -> dict[str, list[str]]:
    """Sentence id → forms (artificial nodes left out) of a real fixture cut, read with lxml."""
    root = etree.parse(str(FIXTURE_SOURCES / name)).getroot()
    return {s.get("id"): [w.get("form") for w in s.iter("word") if not w.get("artificial")]
            for s in root.iter("sentence")}


AGDT = fixture_sentences("agdt_tlg0003.tlg001.perseus-grc1.1.tb.xml")
GORMAN = fixture_sentences("gorman_Lysias 1 bu1.xml")


def _is_punct(form: str) -> bool:
    return all(unicodedata.category(c)[0] in "PS" for c in form)


def _xml(sentences: list[tuple[str, list[str]]]) -> str:
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<treebank xml:lang="grc" format="aldt" version="1.5">']
    for sid, forms in sentences:
        out.append(f'  <sentence id="{sid}" document_id="doc" subdoc="1.{sid}">')
        for i, f in enumerate(forms, start=1):
            pos, rel = ("u--------", "AuxK") if _is_punct(f) else ("n-s---mn-", "PRED" if i == 1 else "SBJ")
            out.append(f'    <word id="{i}" form="{f}" lemma="{f}" postag="{pos}" relation="{rel}" '
                       f'head="{0 if i == 1 else 1}"/>')
        out.append("  </sentence>")
    return "\n".join(out + ["</treebank>"]) + "\n"


def _conllu(sentences: list[tuple[str, list[str]]], header: list[str]) -> str:
    out = list(header)
    for sid, forms in sentences:
        out += [f"# sent_id = {sid}", f"# text = {' '.join(forms)}"]
        for i, f in enumerate(forms, start=1):
            p = _is_punct(f)
            out.append(f"{i}\t{f}\t{f}\t{'PUNCT' if p else 'NOUN'}\t_\t_\t{0 if i == 1 else 1}\t"
                       f"{'root' if i == 1 else 'punct' if p else 'dep'}\t_\t_")
        out.append("")
    return "\n".join(out) + "\n"


def acute(form: str) -> str:
    """Grave → acute (U+0300 → U+0301), NFC."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", form).replace("\u0300", "\u0301"))


def write_tree(data: Path) -> dict[str, Path]:
    """The real cuts plus the hand-made folds and files (module docstring); returns snapshot roots."""
    tiny_sources(data, LAYOUT)
    words = [acute(f) for f in GORMAN["1"] if not _is_punct(f)]
    files = {
        "ud-perseus/grc_perseus-ud-dev.conllu": _conllu([(f"{AGDT_FILE}@1", AGDT["1"])],
                                                        [f"# newdoc id = {AGDT_FILE}"]),
        "ud-proiel/grc_proiel-ud-test.conllu": _conllu([("900001", words)],
                                                       ["# source = Histories, Book 1, chapter 1"]),
        f"gorman/xml versions/{HDT_FILE}": _xml([("1", ["ὁ", "δὲ", "εἶπε", "."])]),
        f"gorman/xml versions/{ANTIPHON_FILE}": _xml([("1", AGDT["2"]), ("2", [".", "·"])]),
    }
    for rel, text in files.items():
        (data / rel).parent.mkdir(parents=True, exist_ok=True)
        (data / rel).write_text(text, encoding="utf-8")
    return {s: data / s for s in ("agdt", "gorman", "pedalion", "harrington", "ud-perseus", "ud-proiel")}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """The fixture tree ingested by the real loader, models built by the runner (data tests on)."""
    base = tmp_path_factory.mktemp("treebank")
    roots = write_tree(base / "data")
    snaps = [s for s in config.snapshots() if s["name"] in roots]
    files = sources.discover(roots, snaps)
    wh = base / "wh.duckdb"
    con = duckdb.connect(str(wh))
    try:
        load.load(con, files, load.parse_all(files, workers=1))
        runner.run(con, runner.load_project(), select=list(treebank_options.MODELS) + [
            "int_native_tree_tokens", "int_token_morphology", "int_tokens"])
    finally:
        con.close()
    return wh


def _exclusions(wh: Path, **options) -> dict[str, dict]:
    """file name:upstream id → exclusion row, with ``options`` applied as the CLI applies them."""
    con = duckdb.connect(str(wh), read_only=True)
    try:
        treebank.select(con, treebank.variables(**options))
        cur = con.execute("select e.*, c.file_name from mart_training_treebank_exclusions as e "
                          "inner join int_training_candidates as c using (sentence_uid)")
        cols = [d[0] for d in cur.description]
        rows = [dict(zip(cols, r)) for r in cur.fetchall()]
    finally:
        con.close()
    return {f"{r['file_name']}:{r['upstream_sentence_id']}": r for r in rows}


def _sent_id(wh: Path, file_name: str, sid: str) -> str:
    con = duckdb.connect(str(wh), read_only=True)
    try:
        return con.execute("select sent_id from int_training_candidates where file_name = ? and "
                           "upstream_sentence_id = ?", [file_name, sid]).fetchone()[0]
    finally:
        con.close()


# --------------------------------------------------------------------------------------------
# Exclusion rules on the fixture tree
# --------------------------------------------------------------------------------------------


def test_default_exclusions_are_exactly_the_planted_ones(tiny):
    ex = _exclusions(tiny)
    assert {k: v["reason"] for k, v in ex.items()} == {
        f"{AGDT_FILE}:1": "ud_perseus_source",
        f"{GORMAN_FILE}:1": "fold_text_match",
        f"{HDT_FILE}:1": "fold_work",
        f"{ANTIPHON_FILE}:1": "duplicate",
        f"{ANTIPHON_FILE}:2": "no_word",
    }


def test_ud_perseus_source_rule_names_the_fold_sentence(tiny):
    row = _exclusions(tiny)[f"{AGDT_FILE}:1"]
    assert row["folds"] == ["ud_perseus-dev"] and row["fold_sent_ids"] == [f"{AGDT_FILE}@1"]
    # the same sentence also matches by text, with identical forms (mart_eval_fold_overlap)
    assert row["reasons"] == ["fold_text_match", "ud_perseus_source"] and row["match_rule"] == "forms"
    # switched off, the text rule still excludes it; both off, it is written
    assert _exclusions(tiny, treebank_exclude_perseus_sources=False)[f"{AGDT_FILE}:1"]["reason"] == "fold_text_match"
    assert f"{AGDT_FILE}:1" not in _exclusions(tiny, treebank_exclude_perseus_sources=False,
                                                treebank_exclude_fold_text=False)


def test_fold_text_rule_matches_by_dedup_key_only(tiny):
    row = _exclusions(tiny)[f"{GORMAN_FILE}:1"]
    # accents and punctuation differ from the PROIEL sentence: only the SPEC §7 key is equal
    assert row["match_rule"] == "dedup_key"
    assert row["folds"] == ["ud_proiel-test"] and row["fold_sent_ids"] == ["900001"]
    assert f"{GORMAN_FILE}:1" not in _exclusions(tiny, treebank_exclude_fold_text=False)
    # not protected: the fold is no longer compared
    assert f"{GORMAN_FILE}:1" not in _exclusions(tiny, treebank_folds=["ud_perseus-dev", "ud_proiel-dev"])


def test_fold_work_rule_excludes_gorman_herodotus(tiny):
    row = _exclusions(tiny)[f"{HDT_FILE}:1"]
    assert row["work_id"] == "tlg0016.tlg001"
    assert row["folds"] == ["ud_proiel-dev", "ud_proiel-test"]  # both PROIEL folds are Herodotus here
    assert f"{HDT_FILE}:1" not in _exclusions(tiny, treebank_exclude_fold_works=False)
    assert f"{HDT_FILE}:1" not in _exclusions(tiny, treebank_work_folds=[])
    # Gorman's Lysias and the AGDT Thucydides sentences are other works
    assert {r["work_id"] for r in _exclusions(tiny).values() if r["work_id"]} == {"tlg0016.tlg001"}


def test_duplicate_keeps_the_higher_priority_project(tiny):
    row = _exclusions(tiny)[f"{ANTIPHON_FILE}:1"]
    assert row["kept_sent_id"] == _sent_id(tiny, AGDT_FILE, "2")  # AGDT 2.1 before Gorman (SPEC §7)
    assert f"{ANTIPHON_FILE}:1" not in _exclusions(tiny, treebank_dedup=False)
    # without AGDT in the selection, Gorman's copy is the one written
    assert f"{ANTIPHON_FILE}:1" not in _exclusions(tiny, treebank_projects=["gorman", "pedalion"])


def test_curation_is_off_by_default_and_switchable(tiny):
    assert not any(k.startswith("grctb.6941") for k in _exclusions(tiny))
    ex = _exclusions(tiny, treebank_curation=True)
    aesop = {k: v for k, v in ex.items() if k.startswith("grctb.6941.1.tb.xml")}
    assert len(aesop) == 2
    assert {(v["reason"], v["curation_decision"]) for v in aesop.values()} == {("curation", "anonymous")}


def test_bad_options_are_clear_errors():
    with pytest.raises(treebank.TreebankError, match="choose among agdt"):
        treebank.variables(treebank_projects=["ud_perseus"])
    with pytest.raises(treebank.TreebankError, match="unknown fold"):
        treebank.variables(treebank_folds=["ud_perseus-train"])
    with pytest.raises(treebank.TreebankError, match="0 to 50"):
        treebank.variables(treebank_dev_percent=80)


# --------------------------------------------------------------------------------------------
# Files and manifest on the fixture tree
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_export(tiny, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tb_out") / "treebank"
    treebank.export_treebank(out, warehouse=tiny)
    return out


def test_files_hold_the_selection_with_punctuation(tiny_export):
    names = sorted(p.name for p in tiny_export.iterdir())
    assert names == [".sphragis-output", "agdt-train.conllu", "gorman-train.conllu", "harrington-train.conllu", "manifest.json",
                     "pedalion-train.conllu"]
    agdt = conllu.parse((tiny_export / "agdt-train.conllu").read_text(encoding="utf-8"))
    assert [s.metadata["source"] for s in agdt] == [f"agdt:v2.1/Greek/texts/{AGDT_FILE}#{i}" for i in ("2", "3")]
    s2 = agdt[0]
    # every source word is written (no artificial node in this sentence), punctuation included
    assert [t["form"] for t in s2] == AGDT["2"]
    assert s2.metadata["text"] == " ".join(AGDT["2"])
    punct = [t for t in s2 if t["form"] == ","]
    assert punct and all(t["upos"] == "PUNCT" and t["deprel"] == "punct" and t["xpos"] == "u--------"
                         for t in punct)
    assert s2.metadata["sent_id"] == s2.metadata["sent_id"].strip() and s2.metadata["sent_id"].startswith("agdt:")


def test_native_columns_of_a_known_token(tiny_export):
    # Thucydides 1.1.1 (AGDT sentence 1 is excluded): sentence 3's tokens keep their AGDT tags as XPOS
    root = etree.parse(str(FIXTURE_SOURCES / "agdt_tlg0003.tlg001.perseus-grc1.1.tb.xml")).getroot()
    words = [w for s in root.iter("sentence") if s.get("id") == "3" for w in s.iter("word")
             if not w.get("artificial")]
    sent = conllu.parse((tiny_export / "agdt-train.conllu").read_text(encoding="utf-8"))[1]
    assert [t["xpos"] for t in sent] == [w.get("postag") for w in words]
    en = next(t for t in sent if t["form"] == "ἦν")  # v3siia---: imperfect indicative active (SPEC §3)
    assert (en["upos"], en["lemma"]) == ("VERB", "εἰμί")
    assert en["feats"] == {"Aspect": "Imp", "Mood": "Ind", "Number": "Sing", "Person": "3", "Tense": "Past",
                           "VerbForm": "Fin", "Voice": "Act"}
    genesthai = next(t for t in sent if t["form"] == "γενέσθαι")  # v--anm---: aorist infinitive middle
    assert genesthai["feats"] == {"Aspect": "Perf", "Tense": "Past", "VerbForm": "Inf", "Voice": "Mid"}
    assert genesthai["deprel"] == "ccomp"  # OBJ on an infinitive (SPEC §4)


def test_manifest_lists_every_exclusion_and_counts(tiny_export):
    m = json.loads((tiny_export / "manifest.json").read_text(encoding="utf-8"))
    assert {e["reason"] for e in m["excluded"]} == {"ud_perseus_source", "fold_text_match", "fold_work",
                                                     "duplicate", "no_word"}
    g = m["counts"]["gorman"]
    assert (g["candidates"], g["selected"]) == (2 + 1 + 2, 1)
    assert g["excluded_by_reason"] == {"duplicate": 1, "fold_text_match": 1, "fold_work": 1, "no_word": 1}
    assert m["seed_001"]["ud_perseus_agdt_sources"] == [
        {"fold": "dev", "fold_sentences": 1, "resolved_to_agdt": 1, "resolved_excluded": 1, "resolved_written": 0}]
    assert {f["file"]: f["sentences"] for f in m["files"]} == {
        "agdt-train.conllu": 2, "gorman-train.conllu": 1, "pedalion-train.conllu": 2, "harrington-train.conllu": 2}
    assert {s["name"] for s in m["sources"]} == {"agdt", "agdt-homer-v1.6", "gorman", "pedalion", "harrington",
                                                 "ud-perseus", "ud-proiel"}
    assert m["validation"]["ud_validator"]["passed_level"] >= treebank_checks.REQUIRED_LEVEL


def test_dev_split_and_merged_file(tiny, tmp_path):
    out = tmp_path / "tb"
    m = treebank.export_treebank(out, {"treebank_dev_percent": 50}, merged=True, warehouse=tiny, validate=False)
    by_file = {f["file"]: f["sentences"] for f in m["files"]}
    assert set(by_file) == {"treebank-train.conllu", "treebank-dev.conllu"}
    assert sum(by_file.values()) == 7
    # 50 % of each project, rounded half to even per project: agdt 1 of 2, gorman 0 of 1 (round(0.5) = 0), ...
    ids = [s.metadata["sent_id"] for f in by_file
           for s in conllu.parse((out / f).read_text(encoding="utf-8"))]
    assert len(set(ids)) == 7


# --------------------------------------------------------------------------------------------
# Real data: the default export, re-checked against the UD fold files
# --------------------------------------------------------------------------------------------


def dedup_key(text: str) -> str:
    """SPEC §7 key, written again here from the SPEC text: NFD, combining marks dropped,
    lowercased, final sigma → σ, letters only."""
    nfd = unicodedata.normalize("NFD", text)
    return "".join(c for c in nfd.lower() if c.isalpha() and not unicodedata.combining(c)).replace("ς", "σ")


# the columns the leakage check reads, parsed as by default; the others (FEATS, HEAD, DEPS,
# MISC parsers) are not parsed, which halves the time of reading the ~66,000 written sentences
ID_FORM = ("id", "form")


@pytest.mark.integration
def test_real_export_is_leakage_clean(real_settings, real_build, tmp_path):
    out = tmp_path / "treebank"
    # the UD validator takes minutes on the real files: its level is asserted on the fixture export
    m = treebank.export_treebank(out, warehouse=real_settings.warehouse, validate=False)
    fold_keys: set[str] = set()
    perseus_sources: set[str] = set()
    for name in config.TRAINING_TREEBANK_VARS["treebank_folds"]:
        fold = folds.known_folds()[name]
        text = (real_settings.data / fold.snapshot / fold.file).read_text(encoding="utf-8")
        for s in conllu.parse(text, fields=ID_FORM):
            forms = [t["form"] for t in s if isinstance(t["id"], int)]
            fold_keys.add(dedup_key("".join(forms)))
            if fold.project == "ud_perseus":
                perseus_sources.add(s.metadata["sent_id"])  # '<AGDT file name>@<AGDT sentence id>'
    assert len(perseus_sources) == 2443  # seed 001: UD Perseus dev + test
    written = 0
    for f in m["files"]:
        for s in conllu.parse((out / f["file"]).read_text(encoding="utf-8"), fields=ID_FORM):
            written += 1
            key = dedup_key("".join(t["form"] for t in s))
            assert key == "" or key not in fold_keys, s.metadata["sent_id"]
            project, rest = s.metadata["source"].split(":", 1)
            path, sid = rest.rsplit("#", 1)
            assert f"{path.rsplit('/', 1)[-1]}@{sid}" not in perseus_sources or project != "agdt", s.metadata["sent_id"]
    assert written == sum(c["selected"] for c in m["counts"].values())
    perseus = {r["fold"]: r for r in m["seed_001"]["ud_perseus_agdt_sources"]}
    assert sum(r["fold_sentences"] for r in perseus.values()) == 2443
    assert all(r["resolved_written"] == 0 for r in perseus.values())
    assert sum(r["resolved_excluded"] for r in perseus.values()) == 2443


def _multiset(pairs) -> Counter:
    """(level, test id, file, line, sentence) of every incident, counted."""
    return Counter((r[0], r[3], name, r[4], r[5]) for name, r in pairs)


def _whole_files(paths: list[Path], level: int = 5) -> Counter:
    """The incidents of the validator run over each file as a whole (fresh state per file)."""
    return _multiset((p.name, r) for p in paths for r in treebank_checks._validate_file(str(p), "grc", level))


def _sliced(paths: list[Path], level: int = 5, size: int = 1, cache: Path | None = None):
    with treebank_checks.Checks(level, cache=cache, jobs=2, slice_sentences=size) as checks:
        for p in paths:
            checks.add(p)
        summary = checks.result()
        return summary, _multiset(treebank_checks.incidents(checks))


def test_validator_slices_match_whole_files_and_are_cached(tiny_export, tmp_path):
    """Slices of one sentence validated in worker processes give the incidents of the validator
    run over each whole file; a second run reads every sentence from the cache; a file repeated
    under another name fails level 2 on its sent_ids, at the validator's line (first token line)."""
    paths = sorted(tiny_export.glob("*.conllu"))
    cache = tmp_path / "cache"
    first, sliced = _sliced(paths, cache=cache)
    assert sliced == _whole_files(paths) and sum(sliced.values()) == 59
    assert first["sentences"] == 7 and first["sentences_cached"] == 0 and first["files_validated_whole"] == []
    second, again = _sliced(paths, cache=cache)
    assert second["sentences_cached"] == 7 and second["messages"] == first["messages"] and again == sliced
    twin = tmp_path / "agdt-copy.conllu"
    twin.write_bytes(paths[0].read_bytes())
    with pytest.raises(treebank.TreebankError, match=r"agdt-copy.conllu line 4 .*\[non-unique-sent-id\] "
                                                      r".* \(also in agdt-train.conllu\)"):
        _sliced([*paths, twin], cache=cache)


#: Two sentences: the first without any feature and a PRON without PronType (the validator holds
#: its warning back until the corpus shows a feature), the second with features.
NO_FEATURE = ("# sent_id = t:1\n# text = τίς ;\n1\tτίς\tτίς\tPRON\tp--------\t_\t0\troot\t_\t_\n"
              "2\t;\t_\tPUNCT\tu--------\t_\t1\tpunct\t_\t_\n\n")
FEATURE = ("# sent_id = t:2\n# text = ἦν .\n1\tἦν\tεἰμί\tVERB\tv3siia---\tMood=Ind|Number=Sing|Person=3|"
           "Tense=Past|VerbForm=Fin|Voice=Act\t0\troot\t_\t_\n2\t.\t_\tPUNCT\tu--------\t_\t1\tpunct\t_\t_\n\n")


@pytest.mark.parametrize("text, held", [(NO_FEATURE + FEATURE, 1), (NO_FEATURE, 0)])
def test_validator_held_back_feature_warning_counts_as_in_the_whole_file(tmp_path, text, held):
    """A slice of the featureless sentence alone gives its held-back warning exactly when the
    whole file shows a feature somewhere (as the whole file's run confirms it there)."""
    path = tmp_path / "t-train.conllu"
    path.write_text(text, encoding="utf-8")
    _, sliced = _sliced([path])
    assert sliced == _whole_files([path])
    assert sum(n for k, n in sliced.items() if k[1] == "pron-det-without-prontype") == held


def test_validator_level_2_error_names_the_line_as_the_whole_file_run(tiny_export, tmp_path):
    """A level-2 error the loaders let through (an unknown UPOS): the file is validated again as a
    whole and the export fails on the validator's own first error, at the token's line."""
    lines = (tiny_export / "gorman-train.conllu").read_text(encoding="utf-8").split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith("3\t"))
    cols = lines[k].split("\t")
    cols[3] = "XYZ"
    lines[k] = "\t".join(cols)
    bad = tmp_path / "gorman-train.conllu"
    bad.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(treebank.TreebankError, match=rf"gorman-train.conllu line {k + 1} .*\[unknown-upos\]"):
        _sliced([bad])


@pytest.fixture(scope="module")
def real_harrington(request, tmp_path_factory) -> tuple[Path, dict, Path]:
    """The real Harrington training file (``--projects harrington``), exported with the validator
    at level 5 from ``SPHRAGIS_TEST_WAREHOUSE`` (development aid) or the session's real build:
    (output folder, manifest, warehouse)."""
    from conftest import dev_warehouse_path

    wh = dev_warehouse_path()
    if wh is None:
        request.getfixturevalue("real_build")
        wh = request.getfixturevalue("real_settings").warehouse
    out = tmp_path_factory.mktemp("real_tb") / "treebank"
    m = treebank.export_treebank(out, {"treebank_projects": ["harrington"]}, warehouse=wh, jobs=2)
    return out, m, wh


@pytest.mark.integration
def test_real_slices_match_the_whole_file(real_harrington):
    """On the real Harrington file (1,013 sentences), slices of 7 sentences give exactly the
    incidents of the validator run over the whole file (level, test id, line, sentence)."""
    out, m, _ = real_harrington
    path = out / "harrington-train.conllu"
    summary, sliced = _sliced([path], size=7)
    whole = _whole_files([path])
    assert sliced == whole
    assert sum(whole.values()) == 4977
    by_kind = Counter({k[:2]: 0 for k in whole})
    for k, n in whole.items():
        by_kind[k[:2]] += n
    assert by_kind[(3, "right-to-left-conj")] == 728 and by_kind[(3, "leaf-mark-case")] == 300
    assert summary["messages"] == m["validation"]["ud_validator"]["messages"]


@pytest.mark.integration
def test_real_cache_serves_merged_and_validator_level_is_part_of_the_state(real_harrington):
    """--merged validates no sentence again (the per-sentence cache: same sentences, same
    predecessors, another file name); --validator-level 2 redoes the export (the level is part of
    its state) and counts nothing above level 2."""
    out, m, wh = real_harrington
    v = m["validation"]["ud_validator"]
    assert (v["validated_level"], v["passed_level"], v["sentences"], v["sentences_cached"]) == (5, 2, 1013, 0)
    options = {"treebank_projects": ["harrington"]}
    merged = treebank.export_treebank(out, options, merged=True, warehouse=wh, jobs=2)
    vm = merged["validation"]["ud_validator"]
    assert [f["file"] for f in merged["files"]] == ["treebank-train.conllu"]
    assert vm["sentences_cached"] == vm["sentences"] == 1013
    assert [(x["test_id"], x["count"]) for x in vm["messages"]] == [(x["test_id"], x["count"]) for x in v["messages"]]
    two = treebank.export_treebank(out, options, merged=True, warehouse=wh, validator_level=2, jobs=2)
    assert two["changed"] == ["variables"]
    v2 = two["validation"]["ud_validator"]
    assert (v2["validated_level"], v2["passed_level"], v2["messages"], v2["sentences_cached"]) == (2, 2, [], 0)
    assert treebank.export_treebank(out, options, merged=True, warehouse=wh, validator_level=2)["up_to_date"]
