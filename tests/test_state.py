"""One state for the steps after the models (SPEC §13 "Nothing is stale"; the
export directory is complete at every instant).

Per kind of input an export, audit or treebank export reads (a named query, the card template, a
module such as ``export/card.py`` or ``sphragis/udfs.py``, a seed read by Python, a warehouse
table, the options), editing it makes the next run redo the work instead of reporting "up to
date"; the edit is made on a copy the run reads (a query folder, template folder or seed folder
pointed at a temporary copy, a module's ``__file__`` pointed at an edited copy), never on the
checkout. The export runs on the fixture sources of ``test_atomic`` (a full build of 20
sentences), the audit on ``test_audit``'s synthetic export, the treebank on ``test_treebank``'s
fixture warehouse.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sphragis import bench_inputs, build, cli, config, queries, runner, state
from sphragis.benchmark import CONFIGS, SPLITS
from sphragis.export import card, writer

from test_atomic import _beside, _tree_digest, kill, settings_env, wait_for_marker
from test_treebank import tiny  # noqa: F401  (the fixture warehouse of the treebank tests)

#: Parquet files of an export: one per configuration and split (sql/seeds/benchmark_configs.csv).
N_FILES = len(CONFIGS) * len(SPLITS)

QUERY = "variant_chunks"


@pytest.fixture(scope="module")
def exported(tiny_exported):
    """A full build of the fixture sources and its export (with its state): the session's
    ``tiny_exported`` (tests/conftest.py), shared with other modules: tests change ``mine``."""
    return tiny_exported


@pytest.fixture()
def mine(exported, tmp_path):
    """A private copy of the exported warehouse, export and export state (mtimes kept)."""
    settings = config.Settings(mirror=exported.mirror, data=exported.data, warehouse=tmp_path / "warehouse.duckdb",
                               out=tmp_path / "sphragis")
    shutil.copyfile(exported.warehouse, settings.warehouse)
    shutil.copytree(exported.out, settings.out)
    shutil.copytree(state.state_dir(exported.out), state.state_dir(settings.out))
    return settings


@pytest.fixture(autouse=True)
def _fresh_query_cache():
    """Named queries are cached per process: a test that points them at a copy starts and ends
    with an empty cache."""
    queries.query.cache_clear()
    config.projects.cache_clear()
    config.snapshots.cache_clear()
    yield
    queries.query.cache_clear()
    config.projects.cache_clear()
    config.snapshots.cache_clear()


def _copy_folder(monkeypatch, tmp_path: Path, owner, attr: str, folder: Path) -> Path:
    """Point ``owner.<attr>`` at a copy of ``folder`` under ``tmp_path``; returns the copy."""
    copy = tmp_path / f"copy-{folder.name}"
    shutil.copytree(folder, copy)
    monkeypatch.setattr(owner, attr, copy)
    return copy


def _edited_module(monkeypatch, tmp_path: Path, module) -> Path:
    """Point ``module.__file__`` at a copy of its source with one comment line added."""
    copy = tmp_path / f"edited-{Path(module.__file__).name}"
    copy.write_text(Path(module.__file__).read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    monkeypatch.setattr(module, "__file__", str(copy))
    return copy


def _export(settings) -> dict:
    return writer.export(settings)["reuse"]


# --------------------------------------------------------------------------------------------
# export


def test_editing_a_named_query_the_export_reads_redoes_it(mine, monkeypatch, tmp_path):
    copy = _copy_folder(monkeypatch, tmp_path, queries, "QUERIES_DIR", queries.QUERIES_DIR)
    queries.query.cache_clear()
    writer.export(mine, full=True)  # reads the copy: the state records it
    assert _export(mine)["up_to_date"]
    # every named query the export recorded as read (the file fingerprints included):
    # each edit alone redoes the export, naming the file
    read = sorted(Path(f).name for f in state.Store(mine.out, "export").load()["reads"]["files"]
                  if Path(f).parent == copy)
    assert {f"{QUERY}.sql", "export_file_fingerprints.sql"} <= set(read)
    for name in read:
        path = copy / name
        path.write_text(path.read_text(encoding="utf-8") + "-- edited\n", encoding="utf-8")
        reuse = _export(mine)
        assert not reuse["up_to_date"], name
        assert reuse["changed"] == [f"file:{path.resolve()}"]
        assert reuse["files_written"] == N_FILES  # the code changed: no file is reused, no unit's validation


def test_a_query_edited_while_the_export_runs_is_not_taken_as_read(mine, monkeypatch, tmp_path):
    # the export read the query before the edit: its state must not record the edited bytes
    from sphragis.export import metadata

    copy = _copy_folder(monkeypatch, tmp_path, queries, "QUERIES_DIR", queries.QUERIES_DIR)
    queries.query.cache_clear()
    writer.export(mine, full=True)
    path = copy / f"{QUERY}.sql"
    real = metadata.write_all

    def edit_meanwhile(con, out, summary):
        path.write_text(path.read_text(encoding="utf-8") + "-- edited while the export ran\n", encoding="utf-8")
        return real(con, out, summary)

    with monkeypatch.context() as m:
        m.setattr(metadata, "write_all", edit_meanwhile)
        assert not writer.export(mine, full=True)["reuse"]["up_to_date"]
    saved = state.Store(mine.out, "export").load()["digests"]
    assert saved[f"file:{path.resolve()}"] == state.CHANGED_WHILE_RUNNING
    reuse = _export(mine)
    assert not reuse["up_to_date"] and reuse["changed"] == [f"file:{path.resolve()}"]
    assert _export(mine)["up_to_date"]


def test_editing_the_card_template_redoes_the_export(mine, monkeypatch, tmp_path):
    copy = _copy_folder(monkeypatch, tmp_path, card, "TEMPLATES", card.TEMPLATES)
    writer.export(mine, full=True)  # reads the copy: the state records it
    template = copy / card.CARD_TEMPLATE
    template.write_text(template.read_text(encoding="utf-8") + "\nA line added to the template.\n", encoding="utf-8")
    reuse = _export(mine)
    assert not reuse["up_to_date"]
    assert reuse["changed"] == [f"file:{template.resolve()}"]
    assert "A line added to the template." in (mine.out / "README.md").read_text(encoding="utf-8")


def test_editing_card_py_redoes_the_export(mine, monkeypatch, tmp_path):
    copy = _edited_module(monkeypatch, tmp_path, card)
    reuse = _export(mine)
    assert not reuse["up_to_date"] and reuse["changed"] == ["module:sphragis.export.card"]
    assert copy.is_file()


def test_editing_udfs_py_redoes_the_export_and_its_validation(mine, monkeypatch, tmp_path):
    from sphragis import udfs

    _edited_module(monkeypatch, tmp_path, udfs)
    reuse = _export(mine)
    assert not reuse["up_to_date"] and reuse["changed"] == ["module:sphragis.udfs"]
    assert reuse["files_written"] == N_FILES  # the code changed: no file is reused, no unit's validation


def test_editing_a_seed_read_by_python_redoes_the_export(mine, monkeypatch, tmp_path):
    # the card names the projects by the project registry projects.csv, read by config.projects(),
    # not by a model
    seeds = _copy_folder(monkeypatch, tmp_path, config, "SEEDS_DIR", config.SEEDS_DIR)
    monkeypatch.setattr(config.read_seed, "__defaults__", (seeds,))
    config.projects.cache_clear()
    writer.export(mine, full=True)  # reads the copy: the state records it
    seed = seeds / "projects.csv"
    seed.write_text(seed.read_text(encoding="utf-8").replace("Harrington", "Harrington (edited)"), encoding="utf-8")
    config.projects.cache_clear()
    reuse = _export(mine)
    assert not reuse["up_to_date"] and reuse["changed"] == [f"file:{seed.resolve()}"]
    assert "Harrington (edited)" in (mine.out / "README.md").read_text(encoding="utf-8")


def test_a_warehouse_table_the_export_reads_changed_redoes_it(mine, tmp_path):
    assert _export(mine)["up_to_date"]
    # one row of works_registry.csv edited and rebuilt: int_works_registry's output changes, and
    # with it the reporting mart the export reads it through (the build report's excluded documents)
    project = runner.load_project(seeds_dir=bench_inputs.edited_seeds(tmp_path / "seeds"))
    build.build(mine, project=project, reingest=False)
    reuse = _export(mine)
    assert not reuse["up_to_date"]
    assert "table:mart_excluded_documents" in reuse["changed"]
    # no code changed: files whose rows did not change are reused (the fixture publishes no row)
    assert all(k.startswith("table:") for k in reuse["changed"]) and reuse["files_reused"] == N_FILES



def test_registry_edit_reuses_what_a_full_rebuild_builds(exported, mine, tmp_path):
    """The one-row works_registry.csv edit of ``test_incremental`` on the fixture cuts (which hold
    the edited document, AGDT Thucydides 1): the incremental build reuses the models outside the
    seed's lineage, and every model table and Parquet file equals a full rebuild of every model
    and a full export. So no model reads the seed outside its lineage: the real-data test rebuilds
    only the seed's descendants for its reference and takes the others from a full build."""
    import dataclasses

    import duckdb
    from test_export import _digest
    from test_incremental import _model_tables, _same_tables

    project = runner.load_project(seeds_dir=bench_inputs.edited_seeds(tmp_path / "seeds"))
    s = build.build(mine, project=project, reingest=False)
    built = {k for k, v in s.status.items() if v[0] == "built"}
    assert s.status["int_works_registry"] == ("built", "input changed: works_registry")
    assert built <= project.descendants({"works_registry"}) and "int_tokens" not in built
    writer.export(mine)
    con = duckdb.connect(str(mine.warehouse), read_only=True)
    try:
        assert con.execute("select count(*) from int_curated_sentences where work = ?",
                           [bench_inputs.REGISTRY_EDIT[3]]).fetchone()[0] > 0
        tables = _model_tables(con)
    finally:
        con.close()
    fresh = dataclasses.replace(mine, warehouse=tmp_path / "fresh.duckdb", out=tmp_path / "fresh-out")
    shutil.copyfile(exported.warehouse, fresh.warehouse)  # its raw tables; every model rebuilt
    s = build.build(fresh, reingest=False, full=True, project=project)
    assert {v[0] for v in s.status.values()} == {"built"}
    writer.export(fresh, full=True)
    _same_tables(mine.warehouse, fresh.warehouse, tables)
    assert _digest(mine.out / "data") == _digest(fresh.out / "data")


def test_a_registry_edit_rebuilds_what_reads_it_and_no_more(mine, edit_registry):
    import duckdb

    # an attribution: no ingest, only what reads the registry table is rebuilt
    project = edit_registry("gorman", "attribution", "Gorman's trees (edited)", "a")
    s = build.build(mine, project=project)
    built = {k for k, v in s.status.items() if v[0] == "built"}
    assert s.ingest_reused and built and built <= project.descendants({"projects"}) and "int_tokens" not in built
    # whether a project's duplicate files are excluded: the curation that reads it changes
    project = edit_registry("unesp", "duplicate_files", "kept", "b")
    s = build.build(mine, project=project)
    assert s.ingest_reused and s.status["int_duplicate_files"][0] == "built"
    con = duckdb.connect(str(mine.warehouse), read_only=True)
    try:
        assert con.execute("select list(distinct decision) from int_curated_sentences "
                           "where project = 'unesp'").fetchone()[0] == ["retained"]
    finally:
        con.close()
    # the published layer: the ingest (whose dialect checks it) and the staging that publishes it
    project = edit_registry("papygreek", "published_layer", "orig", "c")
    s = build.build(mine, project=project)
    assert not s.ingest_reused and s.status["stg_papygreek__tokens"][0] == "built"
    con = duckdb.connect(str(mine.warehouse), read_only=True)
    try:
        # o.claud.1.169's sentence 2, word 4: the diplomatic παντων is published now, not πάντας
        assert con.execute("select t.form from stg_papygreek__tokens as t join int_sentences as s using "
                           "(sentence_uid) where s.sentence_pos = 2 and t.token_pos = 4").fetchone() == ("παντων",)
    finally:
        con.close()


# --------------------------------------------------------------------------------------------
# the swap: a complete export at every instant

KILLED_SWAP_SCRIPT = """
import os, pathlib, sys, time
from sphragis import cli, files
marker, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
def hold():
    marker.write_text("swapping")
    time.sleep(120)
real_replace = os.replace
def replace(src, dst, *args, **kwargs):
    # the first rename that moves the export directory: hold right after it
    done = real_replace(src, dst, *args, **kwargs)
    if pathlib.Path(src) == out or pathlib.Path(dst) == out:
        hold()
    return done
os.replace = replace
if sys.argv[3] == "no-exchange":
    files.exchange = lambda a, b: False
elif hasattr(files, "exchange"):
    real_exchange = files.exchange
    def exchange(a, b):
        done = real_exchange(a, b)
        hold()
        return done
    files.exchange = exchange
sys.exit(cli.main(["export", "--full"]))
"""


def _killed_during_swap(settings, tmp_path, mode: str) -> None:
    marker = tmp_path / "held"
    proc = subprocess.Popen([sys.executable, "-c", KILLED_SWAP_SCRIPT, str(marker), str(settings.out), mode],
                            env=settings_env(settings), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_for_marker(proc, marker, "the swap of the export directory")
    kill(proc)


def test_a_kill_during_the_swap_leaves_a_complete_export(mine, tmp_path):
    before = _tree_digest(mine.out)
    _killed_during_swap(mine, tmp_path, "exchange")
    assert _tree_digest(mine.out) == before  # the same bytes: the new export, complete
    assert [n.rsplit("-", 1)[0] for n in _beside(mine.out)] == ["sphragis.building"]  # the old one, swapped out
    writer.export(mine)
    assert _beside(mine.out) == []  # removed by the next export


def test_an_export_killed_between_the_two_renames_is_restored_by_the_next(mine, tmp_path):
    # where the system cannot exchange two directories: the next export puts the old one back first
    before = _tree_digest(mine.out)
    _killed_during_swap(mine, tmp_path, "no-exchange")
    leftovers = _beside(mine.out)
    assert [n.rsplit("-", 1)[0] for n in leftovers if ".old-" in n] == ["sphragis.old"]
    writer.export(mine, full=True)
    assert _tree_digest(mine.out) == before
    assert _beside(mine.out) == []


def test_replace_dir_exchanges_atomically(tmp_path):
    from sphragis import files

    old, new = tmp_path / "out", tmp_path / "out.building-1"
    old.mkdir()
    new.mkdir()
    (old / "a").write_text("old")
    (new / "a").write_text("new")
    assert files.exchange(new, old)  # Linux: renameat2(RENAME_EXCHANGE)
    assert (old / "a").read_text() == "new" and (new / "a").read_text() == "old"
    files.replace_dir(new, old)
    assert (old / "a").read_text() == "old" and not new.exists()


# --------------------------------------------------------------------------------------------
# audit


@pytest.fixture()
def audited(tmp_path, monkeypatch, capsys):
    pytest.importorskip("sklearn", reason="the audit needs the 'audit' extra (scikit-learn)")
    from test_audit import make_export

    out = make_export(tmp_path / "out", 1, "sentence_1")
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(tmp_path / "absent.duckdb"))
    args = ["audit", "--out", str(out), "--config", "sentence_1", "--quiet"]
    assert cli.main(args) == 0
    assert cli.main(args) == 0
    assert "audit up to date" in capsys.readouterr().err
    return out, args


def test_editing_a_module_the_audit_imports_redoes_it(audited, monkeypatch, tmp_path, capsys):
    from sphragis import benchmark  # the configurations' tracks and chunk sizes the audit reports

    out, args = audited
    _edited_module(monkeypatch, tmp_path, benchmark)
    assert cli.main(args) == 0
    err = capsys.readouterr().err
    assert "audit up to date" not in err and "changed since the last audit: module sphragis.benchmark" in err


def test_editing_a_named_query_the_audit_reads_redoes_it(audited, monkeypatch, tmp_path, capsys):
    out, args = audited
    copy = _copy_folder(monkeypatch, tmp_path, queries, "QUERIES_DIR", queries.QUERIES_DIR)
    queries.query.cache_clear()
    assert cli.main([*args, "--full"]) == 0  # reads the copy: the state records it
    assert cli.main(args) == 0
    assert "audit up to date" in capsys.readouterr().err
    # every named query the audit recorded as read (the payload queries included):
    # each edit alone redoes the audit, naming the file
    from sphragis import audit

    read = sorted(Path(f).name for f in audit.state_store(out).load()["reads"]["files"]
                  if Path(f).parent == copy)
    assert {"audit_markup.sql", "audit_payload_files.sql", "audit_payloads.sql", "audit_files.sql"} <= set(read)
    for name in read:
        path = copy / name
        path.write_text(path.read_text(encoding="utf-8") + "-- edited\n", encoding="utf-8")
        assert cli.main(args) == 0
        assert f"changed since the last audit: file {name}" in capsys.readouterr().err, name


def test_editing_the_declared_input_columns_redoes_the_audit(audited, capsys):
    # the audit checks its features against input_columns of metadata/dataset_variants.json: an
    # edit of that file is a change (and here a refusal: the features read conllu)
    from test_audit import declare_inputs

    out, args = audited
    declare_inputs(out, "sentence_1", ("text",))
    assert cli.main(args) == 1
    assert "would read conllu" in capsys.readouterr().err
    declare_inputs(out, "sentence_1", ("text", "conllu", "genre"))
    assert cli.main(args) == 0
    assert "changed since the last audit: file dataset_variants.json" in capsys.readouterr().err


def test_the_audit_takes_the_build_lock_to_write_the_warehouse(audited, monkeypatch, tmp_path, capsys):
    import duckdb

    out, args = audited
    warehouse = tmp_path / "warehouse.duckdb"
    duckdb.connect(str(warehouse)).close()
    before = warehouse.read_bytes()
    monkeypatch.setenv("SPHRAGIS_WAREHOUSE", str(warehouse))
    with build.build_lock(warehouse):  # a build is running on the warehouse
        assert cli.main(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert f"another build is running on {warehouse}" in err[-1] and "Traceback" not in "".join(err)
    assert warehouse.read_bytes() == before
    assert cli.main(args) == 0  # the lock released: the results (reused) are written
    con = duckdb.connect(str(warehouse), read_only=True)
    assert con.execute("select count(*) from audit_results").fetchone()[0] == 6
    con.close()


# --------------------------------------------------------------------------------------------
# treebank


def test_treebank_export_is_up_to_date_until_what_it_reads_changes(tiny, monkeypatch, tmp_path):  # noqa: F811
    from sphragis.export import treebank

    out = tmp_path / "treebank"
    copy = _copy_folder(monkeypatch, tmp_path, queries, "QUERIES_DIR", queries.QUERIES_DIR)
    queries.query.cache_clear()
    first = treebank.export_treebank(out, warehouse=tiny, validate=False)
    again = treebank.export_treebank(out, warehouse=tiny, validate=False)
    assert again.pop("up_to_date") is True and again == json.loads(json.dumps(first))

    path = copy / "training_treebank_file.sql"  # a named query it reads
    path.write_text(path.read_text(encoding="utf-8") + "-- edited\n", encoding="utf-8")
    m = treebank.export_treebank(out, warehouse=tiny, validate=False)
    assert "up_to_date" not in m and m["changed"] == [f"file:{path.resolve()}"]

    m = treebank.export_treebank(out, merged=True, warehouse=tiny, validate=False)  # other options
    assert "up_to_date" not in m and m["changed"] == ["variables"]

    from sphragis.evaluation import annotations

    _edited_module(monkeypatch, tmp_path, annotations)  # a module it imports
    m = treebank.export_treebank(out, merged=True, warehouse=tiny, validate=False)
    assert m["changed"] == ["module:sphragis.evaluation.annotations"]

    (out / "manifest.json").write_text("{}", encoding="utf-8")  # an output edited by hand
    m = treebank.export_treebank(out, merged=True, warehouse=tiny, validate=False)
    assert "up_to_date" not in m and (out / "manifest.json").read_text(encoding="utf-8") != "{}"


def test_treebank_reads_are_derived(tiny, tmp_path):  # noqa: F811
    from sphragis.export import treebank

    out = tmp_path / "treebank"
    treebank.export_treebank(out, warehouse=tiny, validate=False)
    reads = state.Store(out, "treebank").load()["reads"]
    assert {"sphragis.export.treebank", "sphragis.evaluation.annotations", "sphragis.export.conllu_units",
            "sphragis.udfs"} <= set(reads["modules"])
    assert {"int_native_tree_tokens", "mart_training_treebank", "mart_training_treebank_exclusions"} <= set(
        reads["tables"])
    assert {"udtools", "conllu", "duckdb"} <= set(reads["libraries"])
    assert str((queries.QUERIES_DIR / "training_treebank_file.sql").resolve()) in reads["files"]


# --------------------------------------------------------------------------------------------
# named queries turned models


def test_a_query_turned_model_is_an_input_through_its_table_fingerprint(mine, tmp_path):
    # the build report's counts were the named query build_report_fates; the mart is read now
    reads = state.Store(mine.out, "export").load()["reads"]
    assert {"mart_fate_counts", "mart_export_units", "mart_license_rows"} <= set(reads["tables"])
    assert not any(Path(f).stem == "build_report_fates" for f in reads["files"])
    models = tmp_path / "models"
    shutil.copytree(config.MODELS_DIR, models)
    path = models / "marts" / "reporting" / "mart_fate_counts.sql"
    path.write_text(path.read_text(encoding="utf-8") + "-- an edit that changes no row\n", encoding="utf-8")
    build.build(mine, project=runner.load_project(models_dir=models), reingest=False)
    reuse = _export(mine)  # a mart no model reads has no early cutoff: its new fingerprint is a change
    assert reuse["changed"] == ["table:mart_fate_counts"] and reuse["files_reused"] == N_FILES
    path.write_text(path.read_text(encoding="utf-8").replace("select * from final", "select *, 1 as edited from final"),
                    encoding="utf-8")
    build.build(mine, project=runner.load_project(models_dir=models), reingest=False)
    reuse = _export(mine)
    assert not reuse["up_to_date"] and reuse["changed"] == ["table:mart_fate_counts"]
    report = json.loads((mine.out / "metadata" / "build_report.json").read_text(encoding="utf-8"))
    assert report["pipeline"]["edited"] == 1


def _declared(name: str) -> set[str]:
    """The warehouse tables the exposure ``name`` depends on (sphragis.dag)."""
    from sphragis import dag

    project = runner.load_project()
    deps = dag.sections(project, queries.renderer(project))["exposures"][name]["depends_on"]
    return {*deps["models"], *deps["seeds"], *(s.split(".", 1)[1] for s in deps["sources"])}


def _warehouse_tables() -> set[str]:
    project = runner.load_project()
    return set(project.models) | set(project.seeds) | {k.split(".", 1)[1] for k in project.sources}


def test_the_export_exposure_declares_what_the_export_reads(exported):
    recorded = set(state.Store(exported.out, "export").load()["reads"]["tables"])
    assert recorded & _warehouse_tables() == _declared("export")


def test_the_treebank_exposure_declares_what_the_treebank_export_reads(tiny, tmp_path):  # noqa: F811
    from sphragis.export import treebank

    out = tmp_path / "treebank"
    treebank.export_treebank(out, warehouse=tiny, validate=False)
    recorded = set(state.Store(out, "treebank").load()["reads"]["tables"])
    assert recorded & _warehouse_tables() == _declared("treebank")
