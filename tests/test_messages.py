"""Messages and small outputs a newcomer reads: the build's tables in a log, the
report's paths and a failed report, the audit's one message."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphragis import build, report
from sphragis.files import OutputRefused, mark_output_dir


def test_tables_do_not_wrap_at_80_columns_in_a_log(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    con = build.console()  # pytest captures stderr: not a terminal
    assert not con.is_terminal and con.width == build.LOG_WIDTH == 200
    monkeypatch.setenv("COLUMNS", "100")
    assert build.console().width == 100


def test_the_report_names_its_inputs_by_relative_paths(tmp_path):
    md = report.render_report(warehouse=tmp_path / "warehouse.duckdb", leakage=tmp_path / "out" / "leakage.json",
                              out_dir=tmp_path / "reports")
    text = md.read_text(encoding="utf-8")
    assert "`../warehouse.duckdb`" in text and "`../out/leakage.json`" in text
    assert str(tmp_path) not in text


def test_a_failed_report_leaves_no_reports_folder(tmp_path):
    bad = tmp_path / "leakage.json"
    bad.write_text("{not json", encoding="utf-8")
    out_dir = tmp_path / "reports"
    with pytest.raises(ValueError) as err:
        report.render_report(warehouse=tmp_path / "none.duckdb", leakage=bad, out_dir=out_dir)
    assert not out_dir.exists()
    # the one line names the file, line and column, and the way out
    assert str(err.value) == (f"{bad}:1:2: not a leakage report (Expecting property name enclosed in double "
                              "quotes); run `sphragis audit` to write it again")


def test_a_report_failing_while_writing_removes_only_what_it_created(tmp_path, monkeypatch):
    def boom(*_a, **_k):
        raise RuntimeError("chart failed")

    monkeypatch.setattr(report, "_render", boom)
    with pytest.raises(RuntimeError):
        report.render_report(warehouse=tmp_path / "none.duckdb", leakage=tmp_path / "x.json", out_dir=tmp_path / "r")
    assert not (tmp_path / "r").exists()
    kept = tmp_path / "kept"  # an earlier report's folder (marked as the product's)
    kept.mkdir()
    mark_output_dir(kept, report.REPORTS_KIND)
    (kept / "old.md").write_text("x", encoding="utf-8")
    with pytest.raises(RuntimeError):
        report.render_report(warehouse=tmp_path / "none.duckdb", leakage=tmp_path / "x.json", out_dir=kept)
    assert (kept / "old.md").is_file()
    mine = tmp_path / "mine"  # a folder of someone else's files is refused before anything is written
    mine.mkdir()
    (mine / "notes.md").write_text("x", encoding="utf-8")
    with pytest.raises(OutputRefused):
        report.render_report(warehouse=tmp_path / "none.duckdb", leakage=tmp_path / "x.json", out_dir=mine)
    assert [p.name for p in mine.iterdir()] == ["notes.md"]


def test_a_model_out_of_memory_names_the_model_and_the_largest_sentence(monkeypatch, tmp_path):
    # a model whose memory grows with a sentence's length fails on the largest one: the build's
    # error names the model (the runner's message) and that sentence (the warehouse's raw layer)
    import duckdb
    from rich.console import Console

    from sphragis import runner
    from sphragis.build_summary import BuildSummary

    con = duckdb.connect()
    con.execute("create table raw_files (file_id integer, path varchar)")
    con.execute("create table raw_sentences (file_id integer, sentence_pos integer, upstream_sentence_id varchar, "
                "n_tokens integer)")
    con.execute("insert into raw_files values (1, 'ud-perseus/a.conllu'), (2, 'ud-perseus/long.conllu')")
    con.execute("insert into raw_sentences values (1, 1, 's1', 12), (2, 1, 'flat', 100000), (2, 2, 'chain', 1000)")

    def out_of_memory(*_args, **_kwargs):
        small = duckdb.connect()
        small.execute("set memory_limit = '8MB'")
        try:
            small.execute("select list(i) from range(50000000) t(i)").fetchall()
        except duckdb.OutOfMemoryException as exc:
            raise runner.ModelError("model int_overlap_texts (models/intermediate/int_overlap_texts.sql) failed: "
                                    f"{exc}") from exc
        raise AssertionError("DuckDB did not run out of memory")

    monkeypatch.setattr(runner, "execute", out_of_memory)
    with pytest.raises(runner.ModelError) as err:
        build.run_models(con, Console(quiet=True), BuildSummary(), runner.Options(), project=runner.load_project())
    text = str(err.value)
    assert text.startswith("model int_overlap_texts (models/intermediate/int_overlap_texts.sql) failed: ")
    assert text.endswith(f"out of memory (DuckDB memory_limit {build.MEMORY_LIMIT}); the largest sentence of the "
                         "warehouse: 100,000 tokens, ud-perseus/long.conllu sentence flat")
