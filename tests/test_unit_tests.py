"""The project's dbt-style unit tests (``models/**/_unit_tests.yml``) run in a build of
the real models: a full build on the fixture sources (tests/fixtures/sources, laid out as the
pinned snapshots) runs every one and records it in the manifest; a wrong expected row fails the
build, naming the yml file and the test, and leaves the warehouse as it was."""

from __future__ import annotations

import hashlib
import shutil

import pytest

from sphragis import build, config, runner

from test_atomic import tiny_settings

#: The key transformations and the unit tests that cover them.
COVERED = {
    "int_split_words": {"split_word_crasis_from_the_table", "split_word_concatenation_some_source_writes",
                        "split_word_without_evidence_keeps_the_longer_piece",
                        "split_word_multiword_token_keeps_its_host", "split_word_elision_mark_joins_the_word_before"},
    "int_units": {"dedup_key_ignores_case_diacritics_and_marks"},
    "int_token_morphology": {"agdt_postag_repairs_to_upos_and_feats", "ud_features_to_tag_and_back"},
    "int_token_relations": {"relation_map_by_part_of_speech_and_root",
                            "relation_map_coordination_takes_its_members_relation"},
    "mart_split_assignments": {"split_assignment_on_the_three_tracks"},
}


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_unit_tests_run_in_a_build_and_a_wrong_expected_row_fails_it(tmp_path):
    settings = tiny_settings(tmp_path)
    summary = build.build(settings)
    units = {tid: rec for tid, rec in summary.manifest["tests"].items() if tid.startswith("unit_test.")}
    assert set(units) == {f"unit_test.{m}.{n}" for m, names in COVERED.items() for n in names}
    assert {rec["status"] for rec in units.values()} == {"pass"}
    assert all(units[f"unit_test.{m}.{n}"]["model"] == m for m, names in COVERED.items() for n in names)
    assert summary.tests[0] == len(summary.manifest["tests"])  # a first build runs every test

    models = shutil.copytree(config.MODELS_DIR, tmp_path / "models")
    yml = models / "intermediate" / "_unit_tests.yml"
    text = yml.read_text(encoding="utf-8")
    assert text.count("dedup_key: αλλεφη}") == 1
    yml.write_text(text.replace("dedup_key: αλλεφη}", "dedup_key: αλλ’εφη}"), encoding="utf-8")
    before = _sha(settings.warehouse)
    with pytest.raises(runner.ModelTestFailure) as exc:
        build.build(settings, project=runner.load_project(models_dir=models))
    assert str(exc.value) == (
        f"1 data test(s) failed:\n  int_units: {yml}: unit_test(dedup_key_ignores_case_diacritics_and_marks): "
        "2 failing row(s), e.g. problem='expected, not in output', sentence_uid=42, project='gorman', "
        "text='ἀλλ’ ἔφη', n_tokens=2, dedup_key='αλλ’εφη'; problem='in output, not expected', sentence_uid=42, "
        "project='gorman', text='ἀλλ’ ἔφη', n_tokens=2, dedup_key='αλλεφη'")
    assert _sha(settings.warehouse) == before
