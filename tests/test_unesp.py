"""UNESP Trees in the warehouse (SPEC §1.1): the site configuration as a metadata file, the file
catalog, duplicates found by content and named, the two license statements, and the
cross-project identity with the AGDT lineage; on the fixture cuts and the real sources."""

from __future__ import annotations

import json

import duckdb
import pytest

from sphragis import config


def test_both_license_statements_are_recorded_and_the_stricter_published():
    pin = next(s for s in config.snapshots() if s["project"] == "unesp")
    assert pin["license_statements"] == {"TREEBANK_LICENSE": "CC BY-SA 4.0", "src/config.json": "CC BY-NC-SA"}
    assert pin["license"] == "CC BY-NC-SA 4.0" and pin["metadata_files"] == ["src/config.json"]
    # the benchmark does not draw from it: its license is not among the export's
    assert pin not in config.benchmark_snapshots()


def test_fixture_build_names_the_byte_identical_copy(tiny_exported):
    con = duckdb.connect(str(tiny_exported.warehouse), read_only=True)
    try:
        # the metadata file verbatim, and the site's listing parsed from it
        content = con.execute("select content from raw_metadata_files where project = 'unesp'").fetchone()[0]
        assert json.loads(content)["copyright"].endswith("CC BY-NC-SA")
        listed = con.execute("select file_name, is_listed, listed_author, listed_work, listed_locus from int_files "
                             "where project = 'unesp' order by file_name").fetchall()
        assert listed == [("Hdt.1.30.1-1.30.5 (treebk).xml", False, None, None, None),
                          ("hdt.1.30.1-1.30.5.xml", True, "Heródoto", "Histórias", "1.30.1-1.30.5")]
        dup = con.execute("select file_name, reason, duplicate_of, is_excluded from int_duplicate_files").fetchall()
        assert dup == [("Hdt.1.30.1-1.30.5 (treebk).xml", "byte_identical", "hdt.1.30.1-1.30.5.xml", True)]
        # the copy's sentences are curated once: decision duplicate_file
        assert con.execute("select list(distinct decision order by decision) from int_curated_sentences "
                           "where project = 'unesp'").fetchone()[0] == ["duplicate_file", "retained"]
    finally:
        con.close()


@pytest.mark.integration
def test_every_file_is_in_the_warehouse(real_warehouse):
    con = real_warehouse
    got = con.execute("select n_files, n_files_unreadable, n_sentences_counted, n_sentences_ingested, n_tokens, "
                      "n_duplicate_files, licenses from mart_project_inventory where project = 'unesp'").fetchone()
    assert got == (59, 1, 2168, 2168, 44891, 8, ["CC BY-NC-SA 4.0"])
    # the one unreadable file: esopo-halm-54.xml is a ZIP archive (of 54-esopo-halm.xml), not XML
    assert con.execute("select file_name, file_problem from int_files where project = 'unesp' "
                       "and file_problem is not null").fetchall() == [
        ("esopo-halm-54.xml", "XML syntax error at line 1: Start tag expected, '<' not found")]
    # the site lists 42 of the 59 files (and 47b-esopo-halm.xml, which the snapshot lacks)
    assert con.execute("select count(*) from int_files where project = 'unesp' and is_listed").fetchone()[0] == 42
    assert con.execute("select count(*) from stg_unesp__file_metadata").fetchone()[0] == 43
    # Justin's epitome is Latin: five files, registry decision not_greek
    latin = con.execute("select count(*) from int_files where project = 'unesp' and language <> 'grc'").fetchone()[0]
    assert latin == 5


@pytest.mark.integration
def test_duplicates_are_found_by_content_and_named(real_warehouse):
    got = real_warehouse.execute("select file_name, reason, duplicate_of from int_duplicate_files "
                                 "where project = 'unesp' order by file_name").fetchall()
    assert got == [
        ("18.4-18.6.xml", "re_annotation", "justino-18-4.xml"),
        ("Hdt.1.30.1-1.30.5 (treebk).xml", "byte_identical", "hdt.1.30.1-1.30.5.xml"),
        ("alcid-peri-soph-1-3.xml", "byte_identical", "alcid_peri_soph.1-3.xml"),
        ("artemidorus-5-55.xml", "re_annotation", "artem-onir-5.51-5.60.xml"),
        ("eur-ba-23-169.xml", "re_annotation", "euripides-ba-23-169.xml"),  # seed 001's earlier duplicate
        ("just-18-4-18-6.xml", "byte_identical", "18.4-18.6.xml"),
        ("maximus-astrol-1-4.xml", "re_annotation", "max-astrol-I-4-1-14.xml"),
        ("paus-1.1.1-1.1.2.xml", "byte_identical", "paus-1-1-1_1-1-2.xml"),
    ]
    # counted once: a duplicate file's sentences leave the cross-project tables
    assert real_warehouse.execute(
        "select count(*) from mart_cross_project_pairs as p join int_curated_sentences as c "
        "on c.sentence_uid in (p.sentence_uid_a, p.sentence_uid_b) where c.decision = 'duplicate_file'").fetchone()[0] == 0


@pytest.mark.integration
def test_cross_project_identity_with_the_agdt_lineage(real_warehouse):
    con = real_warehouse
    # UNESP's Herodotus 1.40-99, Lysias 1 and the First Philippic are the very sentences AGDT and
    # Gorman annotate: each of their sentences has a record in another project (same dedup key)
    got = con.execute("select file_name, n_sentences_ingested, n_sentences_shared, shared_with, authors "
                      "from mart_file_inventory where file_name in ('herodotus-1-40-59.xml', 'lysias-1-1-50.xml', "
                      "'aesch-eum-117-139.xml') order by file_name").fetchall()
    assert got == [("aesch-eum-117-139.xml", 20, 9, ["agdt"], ["Aeschylus"]),
                   ("herodotus-1-40-59.xml", 100, 100, ["agdt", "gorman", "pedalion"], ["Herodotus"]),
                   ("lysias-1-1-50.xml", 134, 134, ["agdt", "gorman", "pedalion"], ["Lysias"])]
    pairs = dict(con.execute("select project_pair, n from mart_cross_project_agreement where scope = 'all' "
                             "and field = 'text' and project_pair in ('agdt–unesp', 'gorman–unesp')").fetchall())
    assert pairs == {"agdt–unesp": 658, "gorman–unesp": 1191}
    # the site's Portuguese labels are curated to the seed's: Heródoto → Herodotus
    assert con.execute("select distinct c.author from int_curated_sentences as c join int_sentences as s "
                       "using (sentence_uid) where s.file_name = 'hdt.1.30.1-1.30.5.xml'").fetchall() == [("Herodotus",)]
