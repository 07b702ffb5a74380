"""State-based rebuilds on the real sources (SPEC §13): what an incremental build reuses is
byte-identical to a fresh full build, after no edit and after a one-row seed edit.

The reference for the edit is the session's full build (tests/conftest.py) with every model the
edited seed reaches rebuilt in full (fingerprints ignored): the models it does not reach are the
session build's, which is a full build of the same inputs. That no model reads the seed outside
its lineage, so that leaving those alone is right, is proved on the fixture cuts against a full
rebuild of every model (``test_state::test_registry_edit_reuses_what_a_full_rebuild_builds``).
"""

from __future__ import annotations

import dataclasses
import filecmp
import shutil

import duckdb
import pytest

from sphragis import bench_inputs, build, runner
from sphragis.export import assembly, export_state, writer

from test_export import _digest  # the digest of the reproducibility test

pytestmark = pytest.mark.integration


def _copy_build(src, dst) -> None:
    shutil.copyfile(src.warehouse, dst.warehouse)
    if src.out.exists():
        shutil.copytree(src.out, dst.out)  # copy2: sizes and mtimes kept, as the export state expects
        shutil.copytree(export_state.ExportState.path(src.out), export_state.ExportState.path(dst.out))


def _model_tables(con) -> list[str]:
    man = runner.read_manifest(con)
    return sorted(n for n, m in man["models"].items() if m["materialized"] == "table")


def _same_tables(a, b, names) -> None:
    con = duckdb.connect()
    con.execute("set enable_progress_bar = false")
    con.execute(f"attach '{a}' as a (read_only)")
    con.execute(f"attach '{b}' as b (read_only)")
    for t in names:
        typed = con.execute(f"select column_name, column_type from (describe a.{t})").fetchall()
        # DOUBLE aggregates (rates, variation) differ in the last bits between any two runs of the
        # same query (parallel summation order), reused or not: compared to 9 decimals
        values = [f'round("{c}", 9)' if typ in ("DOUBLE", "FLOAT") else f'"{c}"' for c, typ in typed]
        cols = ", ".join(f'{v} as "{c}"' for v, (c, _) in zip(values, typed))
        # equal multisets of rows have equal row counts and sums of row hashes: one scan of each
        # side (far cheaper than comparing rows); only a table where they differ is compared
        # row by row below, which decides and says how many rows differ
        row = ", ".join(values)
        digest = [con.execute(f"select count(*), sum(hash({row})) from {db}.{t}").fetchone() for db in ("a", "b")]
        if digest[0] == digest[1]:
            continue
        # a EXCEPT ALL b and b EXCEPT ALL a, counted in one pass (3-5x faster than the two set
        # operations): per distinct row, its count in a minus its count in b; NULLs group together
        # as EXCEPT compares them
        names = ", ".join(f'"{c}"' for c, _ in typed)
        a_only, b_only = con.execute(
            f"select coalesce(sum(greatest(d, 0)), 0), coalesce(sum(greatest(-d, 0)), 0) from ("
            f"select {names}, sum(w) as d from ("
            f"select {cols}, 1 as w from a.{t} union all select {cols}, -1 as w from b.{t}) "
            f"group by all having sum(w) <> 0)").fetchone()
        assert a_only == 0, f"{t}: {a_only} rows of a not in b"
        assert b_only == 0, f"{t}: {b_only} rows of b not in a"
    con.close()


def test_reuse_is_byte_identical_to_a_full_build(real_settings, real_build, real_export, tmp_path):
    inc = dataclasses.replace(real_settings, warehouse=tmp_path / "inc.duckdb", out=tmp_path / "inc-out")
    _copy_build(real_settings, inc)
    reference = _digest(real_export)

    # no edit: nothing is re-ingested, rebuilt, re-tested, revalidated or rewritten
    s = build.build(inc)
    assert s.ingest_reused and {v[0] for v in s.status.values()} == {"reused"}
    assert s.tests == (0, len(s.manifest["tests"]))  # every test passed before on the same fingerprints
    r = writer.export(inc)
    assert r["reuse"]["up_to_date"]
    assert _digest(inc.out) == reference
    assert build.manifest_path(inc.warehouse).exists()

    # one row of works_registry.csv edited: the registry's descendants are rebuilt, the rest reused
    seeds = bench_inputs.edited_seeds(tmp_path / "seeds")
    project = runner.load_project(seeds_dir=seeds)
    s = build.build(inc, project=project)
    built = {k for k, v in s.status.items() if v[0] == "built"}
    assert s.status["int_works_registry"] == ("built", "input changed: works_registry")
    assert s.status["int_curated_sentences"] == ("built", "input changed: int_works_registry")
    assert "int_tokens" not in built and "int_token_morphology" not in built and "mart_benchmark_rows" in built
    r = writer.export(inc)
    # a configuration split none of whose rows and units changed is linked, not rewritten: the
    # files reused are exactly those whose bytes are the first export's (the 12 work_held_out
    # files and the 4 source_held_out train files; the edited work is in the other 20)
    same = sorted(f.relative_to(inc.out).as_posix() for f in (inc.out / "data").rglob("*.parquet")
                  if filecmp.cmp(f, real_settings.out / f.relative_to(inc.out), shallow=False))
    assert (r["reuse"]["files_reused"], r["reuse"]["files_written"]) == (len(same), 36 - len(same))
    assert len(same) == 16 and sum(f.startswith("data/work_held_out_") for f in same) == 12
    con = duckdb.connect(str(inc.warehouse), read_only=True)
    # only units that the first export did not validate are validated (the edit may publish a new one)
    before = export_state.ExportState.load(real_settings.out).validated
    hashes = assembly.unit_hashes(assembly.fetch_units(con)).to_pylist()
    assert r["reuse"]["units_cached"] == sum(h in before for h in hashes) > 0.99 * len(hashes)
    tables = _model_tables(con)
    assert con.execute("select count(*) from int_curated_sentences where work = ?",
                       [bench_inputs.REGISTRY_EDIT[3]]).fetchone()[0] > 0
    con.close()

    # the same edit built from scratch where it reaches (the session's full build copied, every
    # model downstream of works_registry rebuilt whatever its fingerprint says, full export)
    fresh = dataclasses.replace(real_settings, warehouse=tmp_path / "fresh.duckdb", out=tmp_path / "fresh-out")
    shutil.copyfile(real_settings.warehouse, fresh.warehouse)
    reached = project.descendants({"works_registry"})
    assert built <= reached  # (early cutoff: models whose inputs came out unchanged are reused)
    s = build.build(fresh, reingest=False, full=True, project=project, select=sorted(reached))
    assert {k for k, v in s.status.items() if v[0] == "built"} == reached
    writer.export(fresh, full=True)
    _same_tables(inc.warehouse, fresh.warehouse, tables)
    assert _digest(inc.out / "data") == _digest(fresh.out / "data")  # every Parquet file, byte for byte
    assert _digest(inc.out / "data") != _digest(real_export / "data")


def test_a_registry_edit_of_a_project_outside_the_benchmark_leaves_the_benchmark(real_settings, real_build,
                                                                                  real_export, tmp_path,
                                                                                  edit_registry):
    """The project registry edited on the real sources (UNESP's duplicate files kept instead of
    excluded): nothing is re-ingested, the models that read the registry are rebuilt, the
    curation of UNESP's eight duplicate files changes, and every Parquet file of the export stays
    byte for byte the session's (the benchmark does not draw from UNESP)."""
    inc = dataclasses.replace(real_settings, warehouse=tmp_path / "inc.duckdb", out=tmp_path / "inc-out")
    _copy_build(real_settings, inc)
    s = build.build(inc, project=edit_registry("unesp", "duplicate_files", "kept"))
    assert s.ingest_reused and s.status["int_duplicate_files"][0] == "built"
    assert "int_tokens" not in {k for k, v in s.status.items() if v[0] == "built"}
    con = duckdb.connect(str(inc.warehouse), read_only=True)
    try:
        assert con.execute("select count(*) from int_curated_sentences where decision = 'duplicate_file'"
                           ).fetchone()[0] == 0
    finally:
        con.close()
    writer.export(inc)
    assert _digest(inc.out / "data") == _digest(real_export / "data")
