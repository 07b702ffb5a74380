"""Works registry and authorship rules (SPEC §6, seed 000 "Conservative authorship policy").

The rules are the data tests the build runs on the seeds ``works_registry`` and
``retained_pseudonymous_authors`` (models/_seeds.yml) and the document-key expressions of
``int_document_keys`` (models/intermediate/int_document_keys.sql, over the staging views); these
tests run exactly that SQL.
"""

from __future__ import annotations

import csv

import duckdb
import pytest

from sphragis import config, runner

COLUMNS = ("project", "document_key", "author", "work", "work_id", "genre", "decision", "justification")
REGISTRY_MODELS = {"works_registry", "retained_pseudonymous_authors", "works_registry_profiles"}


@pytest.fixture(scope="module")
def project() -> runner.Project:
    return runner.load_project()


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    return config.read_seed("works_registry", COLUMNS)


@pytest.fixture(scope="module")
def index(rows) -> dict[tuple[str, str], dict[str, str]]:
    return {(r["project"], r["document_key"]): r for r in rows}


def _row(**kw: str) -> dict[str, str]:
    base = dict(project="pedalion", document_key="x.xml#1", author="Lucian", work="Prometheus",
                work_id="", genre="prose", decision="retained", justification="test")
    base.update(kw)
    return base


def registry_failures(project: runner.Project, *extra: dict[str, str]) -> list[str]:
    """The failing registry data tests (model: test) after adding ``extra`` rows to the seeds as
    the build loads them."""
    con = duckdb.connect()
    try:
        runner.load_seeds(con, project)
        for r in extra:
            con.execute(f"insert into works_registry ({', '.join(COLUMNS)}) values ({', '.join('?' * len(COLUMNS))})",
                        [r[c] or None for c in COLUMNS])
        return [f"{model}: {desc}" for model, desc, _ in runner.run_tests(con, project, REGISTRY_MODELS)]
    finally:
        con.close()


# --------------------------------------------------------------------------- the file itself
def test_registry_passes_its_data_tests(project, rows):
    assert len(rows) > 500
    assert registry_failures(project) == []


def test_registry_file_layout():
    text = (config.SEEDS_DIR / "works_registry.csv").read_text(encoding="utf-8")
    assert text.splitlines()[0] == ",".join(COLUMNS)
    keys = [(r["project"], r["document_key"]) for r in csv.DictReader(text.splitlines())]
    assert keys == sorted(keys), "rows must be sorted by project, then document_key"


def test_reason_codes_and_decisions(project, rows):
    decision = next(c for c in project.schema["works_registry"]["columns"] if c["name"] == "decision")
    accepted = next(runner.test_args(t, "accepted_values")["values"]  # either of dbt's forms
                    for t in decision["data_tests"] if isinstance(t, dict))
    assert accepted == ["retained", "anonymous", "pseudepigraphic", "traditional_attribution", "fragments",
                        "mediated", "corporate", "disputed", "not_greek", "mixed_unattributable"]
    assert {r["decision"] for r in rows} == set(accepted)  # every reason is used
    assert all(r["justification"].strip() for r in rows)


def test_retained_authors_use_seed_spellings(rows):
    retained = {r["author"] for r in rows if r["decision"] == "retained"}
    for label in ("Homeric-Iliad", "Homeric-Odyssey", "Diodorus Siculus", "Dionysius of Halicarnassus",
                  "Sextus Empiricus", "Paul", "Josephus", "Demosthenes", "Lysias", "Antiphon"):
        assert label in retained
    assert not {"Homer", "Homerus", "Lucianus", "Flavius Josephus", "Plutarchus"} & retained


# --------------------------------------------------------------------------- pseudonymous rule
def test_retained_pseudonymous_authors_is_one_seed():
    assert config.RETAINED_PSEUDONYMOUS_AUTHORS == frozenset({"Pseudo-Oppian"})


@pytest.mark.parametrize(
    ("rows_", "fragment"),
    [
        ([_row(author="Pseudo-Lucian", work="Onos")], "retained_pseudonymous_authors as p)"),
        ([_row(author="Oppian", work="Cynegetica", genre="verse")], "works_registry.author <> p.author"),
        ([_row(author="Oppian", work="On Hunting", work_id="tlg0024.tlg001", genre="verse")],
         "works_registry.author <> p.author"),
        ([_row(author="Pseudo-Oppian", work="Halieutica", work_id="tlg0023.tlg001", genre="verse")],
         "coalesce(works_registry.work_id, '') <> p.work_id"),
        ([_row(decision="spurious")], "accepted_values(decision)"),
        ([_row(genre="drama")], "accepted_values(genre)"),
        ([_row(author="")], "trim(coalesce(author, '')) <> ''"),
        ([_row(work=" ")], "trim(coalesce(work, '')) <> ''"),
        ([_row(project="perseus")], "relationships(to source_priority.project)(project)"),
        ([_row(work_id="0019-001")], "regexp_full_match(work_id"),
        ([_row(decision="disputed", justification="")], "trim(coalesce(justification, '')) <> ''"),
        ([_row(), _row(author="Plato", work="Crito")], "unique_combination(project, document_key)"),
    ],
)
def test_a_bad_registry_row_fails_a_data_test(project, rows_, fragment):
    failures = registry_failures(project, *rows_)
    assert len(failures) == 1 and failures[0].startswith("works_registry: ") and fragment in failures[0], failures


@pytest.mark.parametrize("row", [
    _row(author="Pseudo-Lucian", work="Onos", decision="pseudepigraphic"),
    _row(author="Pseudo-Oppian", work="Cynegetica (On Hunting)", work_id="tlg0024.tlg001", genre="verse"),
    _row(author="Oppian", work="Halieutica", work_id="tlg0023.tlg001", genre="verse"),
])
def test_a_good_registry_row_passes(project, row):
    assert registry_failures(project, row) == []


# --------------------------------------------------------------------------- real decisions
@pytest.mark.parametrize(
    ("project", "key", "author", "decision"),
    [
        ("agdt", "tlg0012.tlg001.perseus-grc1_1.tb.xml", "Homeric-Iliad", "retained"),
        ("agdt", "tlg0012.tlg001.perseus-grc1_24.tb.xml", "Homeric-Iliad", "retained"),
        ("agdt", "tlg0012.tlg002.perseus-grc1_9.tb.xml", "Homeric-Odyssey", "retained"),
        ("agdt", "tlg0020.tlg001.perseus-grc1.tb.xml", "Hesiod", "retained"),
        ("agdt", "tlg0020.tlg002.perseus-grc1.tb.xml", "Hesiod", "retained"),
        ("agdt", "tlg0020.tlg003.perseus-grc1.tb.xml", None, "pseudepigraphic"),
        ("agdt", "tlg0085.tlg003.perseus-grc2.tb.xml", None, "disputed"),
        ("agdt", "tlg0013.tlg002.perseus-grc1.tb.xml", None, "anonymous"),
        ("agdt", "tlg0096.tlg002.opp-grc2.1-53.tb.xml", None, "traditional_attribution"),
        ("gorman", "Dem 59 Neaira tree.xml", None, "disputed"),
        ("gorman", "demosthenes 50 tree.xml", None, "disputed"),
        ("gorman", "dem 7 tree.xml", None, "disputed"),
        ("gorman", "Demosthenes_17_tree.xml", None, "disputed"),
        ("gorman", "demosthenes 18 1-50 bu2.xml", "Demosthenes", "retained"),
        ("gorman", "antiphon 2 bu2.xml", None, "disputed"),
        ("gorman", "Antiphon 5 bu2.xml", "Antiphon", "retained"),
        ("gorman", "ps xen ath pol bu2.xml", None, "pseudepigraphic"),
        ("ud_proiel", "The Greek New Testament, Romans", "Paul", "retained"),
        ("ud_proiel", "Histories", "Herodotus", "retained"),
        ("ud_ptnk", "Septuagint-Genesis", None, "anonymous"),
        ("pedalion", "epictetus#0557-001", None, "mediated"),
        ("pedalion", "epictetus.xml#0557-001", None, "mediated"),
        ("pedalion", "pseudoplato_cleitophon.xml#0059-00x", None, "pseudepigraphic"),
        ("pedalion", "pseudo-lucian_themule.xml#Ps-Luc", None, "pseudepigraphic"),
        ("pedalion", "batracho.xml#1220-001", None, "pseudepigraphic"),
        ("pedalion", "chion.xml#0041-001", None, "pseudepigraphic"),
        ("pedalion", "sappho.xml#0009-001", None, "fragments"),
        ("pedalion", "papyri.xml#1509", None, "anonymous"),
        ("pedalion", "sextus.xml#0544-002", "Sextus Empiricus", "retained"),
        ("pedalion", "chilia-sentences.xml#0540-013", "Lysias", "retained"),
        ("pedalion", "chilia-sentences.xml#0012-001", "Homeric-Iliad", "retained"),
        ("pedalion", "external_examplesentences.xml#0085-003", None, "disputed"),
        ("pedalion", "chilia-sentences.xml#NT", None, "mixed_unattributable"),
        ("pedalion", "example-sentences.xml#Chilia", None, "mixed_unattributable"),
        ("harrington", "grctb.805.1.tb.xml", None, "not_greek"),
        ("harrington", "grctb.6941.1.tb.xml", None, "anonymous"),
        ("harrington", "grctb.5280.1.tb.xml", "Lucian", "retained"),
    ],
)
def test_real_decisions(index, project, key, author, decision):
    row = index[(project, key)]
    assert row["decision"] == decision, row
    if author is not None:
        assert row["author"] == author


def test_iliad_and_odyssey_books_are_separate_labels(index):
    for (project, key), row in index.items():
        if project == "agdt" and key.startswith("tlg0012.tlg001."):
            assert (row["author"], row["work_id"], row["genre"], row["decision"]) == (
                "Homeric-Iliad", "tlg0012.tlg001", "verse", "retained")
        if project == "agdt" and key.startswith("tlg0012.tlg002."):
            assert (row["author"], row["work_id"], row["decision"]) == ("Homeric-Odyssey", "tlg0012.tlg002", "retained")


def test_new_testament_keeps_only_the_seven_pauline_letters(index):
    paul7 = {"Romans", "1 Corinthians", "2 Corinthians", "Galatians", "Philippians", "1 Thessalonians", "Philemon"}
    nt = {k.split(", ", 1)[1]: r for (p, k), r in index.items()
          if p == "ud_proiel" and k.startswith("The Greek New Testament, ")}
    assert {"Matthew", "Mark", "Luke", "John", "Acts", "Revelation", "Romans"} <= set(nt)
    for book, row in nt.items():
        assert (row["decision"] == "retained") == (book in paul7), book
        if book in paul7:
            assert row["author"] == "Paul"
    assert nt["Acts"]["decision"] in ("anonymous", "traditional_attribution")


# --------------------------------------------------------------------------- document keys
RAW = [
    # project, file path, upstream sentence id, document_id (XML @document_id / `# newdoc id`), comments
    ("agdt", "data/tlg0012.tlg001.perseus-grc1_1.tb.xml", "1", "urn:cts:greekLit:tlg0012.tlg001", []),
    ("gorman", "xml versions/Lysias 1 bu1.xml", "1", None, []),
    ("pedalion", "pedalion/achar.xml", "1", "0019-001", []),
    ("pedalion", "pedalion/x.xml", "2", None, []),
    ("ud_perseus", "grc_perseus-ud-test.conllu", "s1", "tlg0003.tlg001.perseus-grc1.1.tb.xml", []),
    ("ud_proiel", "grc_proiel-ud-dev.conllu", "1", None, ["# source = Histories, Book 1, chapter 10"]),
    ("ud_proiel", "grc_proiel-ud-dev.conllu", "2", None, ["# source = The Greek New Testament, Acts 5"]),
    ("ud_proiel", "grc_proiel-ud-dev.conllu", "3", None, ["# source = The Greek New Testament, 1 Corinthians 13"]),
    ("ud_ptnk", "grc_ptnk-ud-train.conllu", "Septuagint-Genesis-31:1-grc", None, []),
    ("ud_ptnk", "grc_ptnk-ud-train.conllu", "Septuagint-Ruth-1:1-grc", None, []),
    ("ud_ptnk", "grc_ptnk-ud-train.conllu", "no-verse-number", None, []),
]


def test_document_key_rules(project):
    # the staging views and int_document_keys the build runs, over raw rows laid out as sql/ddl/raw.sql
    con = duckdb.connect()
    con.execute((config.DDL_DIR / "raw.sql").read_text(encoding="utf-8"))
    for uid, (proj, path, sid, doc, comments) in enumerate(RAW, start=1):
        con.execute("insert into raw_files (file_id, snapshot, project, treebank_source, commit, upstream, license, "
                    "path, format, sha256, bytes, n_sentences_expected, n_sentences_ingested, n_words_expected, "
                    "n_tokens_ingested) values (?, 's', ?, 't', 'c', 'u', 'l', ?, 'f', 'h', 0, 1, 1, 0, 0)",
                    [uid, proj, path])
        con.execute("insert into raw_sentences (sentence_uid, file_id, sentence_pos, line, upstream_sentence_id, "
                    "document_id, comments, n_tokens) values (?, ?, 1, 1, ?, ?, ?, 0)", [uid, uid, sid, doc, comments])
    for name in sorted(n for n in project.models if n.startswith("stg_") and n.endswith("__sentences")):
        con.execute(f"create view {name} as {runner.render(project, name)}")
    sql = runner.render(project, "int_document_keys")
    keys = con.execute(f"select project, document_key from ({sql}) order by sentence_uid").fetchall()
    assert keys == [
        ("agdt", "tlg0012.tlg001.perseus-grc1_1.tb.xml"),
        ("gorman", "Lysias 1 bu1.xml"),
        ("pedalion", "achar.xml#0019-001"),
        ("pedalion", "x.xml#"),
        ("ud_perseus", "tlg0003.tlg001.perseus-grc1.1.tb.xml"),
        ("ud_proiel", "Histories"),
        ("ud_proiel", "The Greek New Testament, Acts"),
        ("ud_proiel", "The Greek New Testament, 1 Corinthians"),
        ("ud_ptnk", "Septuagint-Genesis"),
        ("ud_ptnk", "Septuagint-Ruth"),
        ("ud_ptnk", ""),  # no `-<chapter>:` in the id: no key, so the registry data test names the sentence
    ]


# --------------------------------------------------------------------------- coverage of real sources
@pytest.mark.integration
def test_every_source_document_has_a_registry_row(real_warehouse, index):
    # the keys the build derived (int_sentences) for every sentence of every pinned source
    keys = real_warehouse.execute("select distinct project, document_key from int_sentences").fetchall()
    assert len(keys) > 500
    missing = sorted(k for k in keys if k not in index)
    assert not missing, "documents without a registry row:\n" + "\n".join(f"{p}|{k}" for p, k in missing)
