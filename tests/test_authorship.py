"""Works registry and authorship rules (SPEC §6, seed 000 "Conservative authorship policy")."""

from __future__ import annotations

import csv
import fnmatch
import os
from pathlib import Path

import pytest

from sphragis import authorship as au
from sphragis.config import snapshots


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    return au.load_registry()


@pytest.fixture(scope="module")
def index(rows) -> dict[tuple[str, str], dict[str, str]]:
    return au.registry_index(rows)


def _row(**kw: str) -> dict[str, str]:
    base = dict(project="pedalion", document_key="x.xml#1", author="Lucian", work="Prometheus",
                work_id="", genre="prose", decision="retained", justification="test")
    base.update(kw)
    return base


# --------------------------------------------------------------------------- the file itself
def test_registry_validates_clean(rows):
    assert rows, "registry is empty"
    assert au.validate_registry(rows) == []


def test_registry_file_layout():
    text = au.REGISTRY_FILE.read_text(encoding="utf-8")
    assert text.splitlines()[0] == ",".join(au.COLUMNS)
    keys = [(r["project"], r["document_key"]) for r in csv.DictReader(text.splitlines())]
    assert keys == sorted(keys), "rows must be sorted by project, then document_key"


def test_reason_codes_and_decisions(rows):
    assert au.REASON_CODES == (
        "anonymous", "pseudepigraphic", "traditional_attribution", "fragments", "mediated",
        "corporate", "disputed", "not_greek", "mixed_unattributable",
    )
    assert {r["decision"] for r in rows} <= set(au.DECISIONS)
    assert all(r["justification"].strip() for r in rows)


def test_retained_authors_use_seed_spellings(rows):
    retained = {r["author"] for r in rows if r["decision"] == "retained"}
    for label in ("Homeric-Iliad", "Homeric-Odyssey", "Diodorus Siculus", "Dionysius of Halicarnassus",
                  "Sextus Empiricus", "Paul", "Josephus", "Demosthenes", "Lysias", "Antiphon"):
        assert label in retained
    assert not {"Homer", "Homerus", "Lucianus", "Flavius Josephus", "Plutarchus"} & retained


# --------------------------------------------------------------------------- pseudonymous rule
def test_retained_pseudo_lucian_is_flagged():
    problems = au.validate_registry([_row(author="Pseudo-Lucian", work="Onos")])
    assert any("Pseudo-Lucian" in p and "RETAINED_PSEUDONYMOUS_AUTHORS" in p for p in problems)


def test_excluded_pseudo_author_is_fine():
    assert au.validate_registry([_row(author="Pseudo-Lucian", work="Onos", decision="pseudepigraphic")]) == []


def test_retained_pseudo_oppian_cynegetica_is_fine():
    assert "Pseudo-Oppian" in au.RETAINED_PSEUDONYMOUS_AUTHORS
    row = _row(author="Pseudo-Oppian", work="Cynegetica", work_id="tlg0024.tlg001", genre="verse")
    assert au.validate_registry([row]) == []


def test_cynegetica_under_oppian_is_flagged():
    for row in (_row(author="Oppian", work="Cynegetica", genre="verse"),
                _row(author="Oppian", work="On Hunting", work_id="tlg0024.tlg001", genre="verse")):
        assert any("Pseudo-Oppian" in p for p in au.validate_registry([row]))
    halieutica = _row(author="Oppian", work="Halieutica", work_id="tlg0023.tlg001", genre="verse")
    assert au.validate_registry([halieutica]) == []
    assert any("'Oppian'" in p for p in au.validate_registry([dict(halieutica, author="Pseudo-Oppian")]))


def test_oppian_rule_lookup():
    assert au.oppian_author("Cynegetica (On Hunting)") == "Pseudo-Oppian"
    assert au.oppian_author("Halieutica") == "Oppian"
    assert au.oppian_author("", "tlg0024.tlg001") == "Pseudo-Oppian"
    assert au.oppian_author("Iliad", "tlg0012.tlg001") is None


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (dict(decision="spurious"), "unknown decision"),
        (dict(genre="drama"), "prose or verse"),
        (dict(author=""), "empty author or work"),
        (dict(work=" "), "empty author or work"),
        (dict(project="perseus"), "unknown project"),
        (dict(work_id="0019-001"), "TLG-style"),
        (dict(decision="disputed", justification=""), "without justification"),
    ],
)
def test_validate_flags_bad_rows(change, fragment):
    assert any(fragment in p for p in au.validate_registry([_row(**change)]))


def test_validate_flags_duplicate_keys():
    problems = au.validate_registry([_row(), _row(author="Plato", work="Crito")])
    assert any("duplicate key" in p for p in problems)


def test_load_registry_errors(tmp_path):
    bad_header = tmp_path / "h.csv"
    bad_header.write_text("project,document_key\nagdt,x\n", encoding="utf-8")
    with pytest.raises(au.RegistryError, match=r"h\.csv:1"):
        au.load_registry(bad_header)
    short = tmp_path / "s.csv"
    short.write_text(",".join(au.COLUMNS) + "\nagdt,x,Plato\n", encoding="utf-8")
    with pytest.raises(au.RegistryError, match=r"s\.csv:2"):
        au.load_registry(short)


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
def test_document_key_rules():
    assert au.proiel_document_key("Histories, Book 1, chapter 10") == "Histories"
    assert au.proiel_document_key("The Greek New Testament, Acts 5") == "The Greek New Testament, Acts"
    nt = "The Greek New Testament, 1 Corinthians"
    assert au.proiel_document_key(nt + " 13") == nt
    assert au.ptnk_document_key("Septuagint-Genesis-31:1-grc") == "Septuagint-Genesis"
    assert au.ptnk_document_key("Septuagint-Ruth-1:1-grc") == "Septuagint-Ruth"
    assert au.document_key("pedalion", basename="achar.xml", document_id="0019-001") == "achar.xml#0019-001"
    assert au.document_key("pedalion", basename="x.xml", document_id="") == "x.xml#"
    assert au.document_key("gorman", basename="Lysias 1 bu1.xml") == "Lysias 1 bu1.xml"
    assert au.document_key("ud_perseus", newdoc_id="tlg0003.tlg001.perseus-grc1.1.tb.xml").endswith(".tb.xml")
    with pytest.raises(ValueError):
        au.document_key("ud_perseus")
    with pytest.raises(ValueError):
        au.document_key("perseus", basename="x")


# --------------------------------------------------------------------------- coverage of real sources
def _treebank_files(snap: dict, root: Path) -> list[Path]:
    files = []
    for pattern in snap["treebank_files"]:
        for f in sorted(root.glob(pattern)):
            rel = f.relative_to(root).as_posix()
            if f.is_file() and not any(fnmatch.fnmatch(rel, ex) for ex in snap.get("exclude", [])):
                files.append(f)
    return files


def _xml_keys(project: str, path: Path) -> set[str]:
    from lxml import etree

    parser = etree.XMLParser(recover=True, huge_tree=True)
    root = etree.parse(str(path), parser).getroot()
    return {au.document_key(project, basename=path.name, document_id=s.get("document_id"))
            for s in root.iter("sentence")}


def _conllu_keys(project: str, path: Path) -> set[str]:
    keys: set[str] = set()
    newdoc, comments = None, {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith("#"):
                name, sep, value = line[1:].partition("=")
                if sep:
                    comments[name.strip()] = value.strip()
                    if name.strip() == "newdoc id":
                        newdoc = value.strip()
            elif not line.strip():
                if comments:
                    keys.add(au.document_key(project, newdoc_id=newdoc, source=comments.get("source"),
                                             sent_id=comments.get("sent_id")))
                comments = {}
    if comments:
        keys.add(au.document_key(project, newdoc_id=newdoc, source=comments.get("source"),
                                 sent_id=comments.get("sent_id")))
    return keys


@pytest.mark.integration
def test_every_source_document_has_a_registry_row(index, real_settings):
    roots = [(snap, real_settings.data / snap["name"]) for snap in snapshots()]
    missing = []
    for snap, root in roots:
        for f in _treebank_files(snap, root):
            keys = _conllu_keys(snap["project"], f) if snap["format"] == "conllu" else _xml_keys(snap["project"], f)
            missing += [f"{snap['project']}|{k} ({f.name})" for k in sorted(keys) if (snap["project"], k) not in index]
    assert not missing, "documents without a registry row:\n" + "\n".join(missing)
    if os.environ.get("SPHRAGIS_REQUIRE_ALL_SNAPSHOTS"):
        assert len(roots) == len(snapshots())
