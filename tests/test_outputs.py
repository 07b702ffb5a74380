"""It never deletes or overwrites what it did not write (SPEC §13).

Every command that writes a folder (export, docs, export-treebank, folds, report, bench) writes only a
folder it created (marked by ``.sphragis-output``) or an empty one; a folder of the user's files,
one of another command's outputs, and an output that is, holds or lies inside what the command
reads are refused in one line, before any work, and left as they were. The warehouse is only ever
replaced when it is a regular file. The analyst shell's ``--output`` and the scorer's ``--json``/
``--markdown`` never name the warehouse, the sources or the export; ``-f`` follows links before
it checks the suffix; ``--table`` reads the one file it names, glob characters and all.

The export, docs and treebank cases use the fixture cuts' build and export of the session
(``tiny_exported``), read-only: the refused commands never reach the writing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import stat
from pathlib import Path

import pytest
from test_atomic import use_settings

from sphragis import build, cli, config
from sphragis.export import folds, treebank, writer
from sphragis.files import OUTPUT_MARKER, OutputRefused, claim_output_dir, replace_dir


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture()
def user_folder(tmp_path) -> Path:
    """A folder of the user's own files: a thesis and a sub-folder of notes."""
    folder = tmp_path / "thesis"
    (folder / "notes").mkdir(parents=True)
    (folder / "thesis.tex").write_text("\\documentclass{article}\n", encoding="utf-8")
    (folder / "notes" / "notes.md").write_text("# notes\n", encoding="utf-8")
    return folder


def _listing(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): _sha(p) for p in sorted(folder.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------------------------
# the rule itself


def test_claim_allows_new_empty_and_own_folders_only(tmp_path, user_folder):
    assert claim_output_dir(tmp_path / "new", "export") == tmp_path / "new"
    (tmp_path / "empty").mkdir()
    assert claim_output_dir(tmp_path / "empty", "export") == tmp_path / "empty"
    own = tmp_path / "own"
    own.mkdir()
    (own / OUTPUT_MARKER).write_text("export\n", encoding="utf-8")
    (own / "README.md").write_text("card\n", encoding="utf-8")
    assert claim_output_dir(own, "export") == own
    with pytest.raises(OutputRefused, match=r"holds the 'export' output of sphragis, not a site output"):
        claim_output_dir(own, "site")
    with pytest.raises(OutputRefused, match=rf"^{user_folder} holds files sphragis did not write \(no "
                                            r"\.sphragis-output in it\)"):
        claim_output_dir(user_folder, "export")
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(OutputRefused, match="exists and is not a folder"):
        claim_output_dir(tmp_path / "file", "export")


def test_replace_dir_marks_the_new_folder_and_refuses_a_user_folder(tmp_path, user_folder):
    before = _listing(user_folder)
    tmp = tmp_path / "staged"
    tmp.mkdir()
    (tmp / "a.txt").write_text("new\n", encoding="utf-8")
    with pytest.raises(OutputRefused):
        replace_dir(tmp, user_folder, "export")
    assert _listing(user_folder) == before
    target = replace_dir(tmp, tmp_path / "out", "export")
    assert (target / OUTPUT_MARKER).read_text(encoding="utf-8") == "export\n"
    assert (target / "a.txt").read_text(encoding="utf-8") == "new\n"


def test_protected_inputs_are_refused_in_every_direction(tmp_path):
    data = tmp_path / "data" / "sources"
    data.mkdir(parents=True)
    for out in (data, data / "export", tmp_path / "data"):  # is, lies inside, holds
        with pytest.raises(OutputRefused, match="which it reads"):
            claim_output_dir(out, "export", protected=(data,))


# --------------------------------------------------------------------------------------------
# the commands


def test_export_into_a_user_folder_is_refused_and_keeps_its_files(tiny_exported, user_folder):
    before = _listing(user_folder)
    with pytest.raises(OutputRefused, match=f"^{user_folder} holds files sphragis did not write"):
        writer.export(dataclasses.replace(tiny_exported, out=user_folder))
    assert _listing(user_folder) == before


def test_sphragis_out_dot_in_a_project_folder_is_refused(tiny_exported, tmp_path, monkeypatch, capsys):
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.md").write_text("my notes\n", encoding="utf-8")
    use_settings(monkeypatch, tiny_exported)
    monkeypatch.setenv("SPHRAGIS_OUT", ".")
    monkeypatch.chdir(project)
    assert cli.main(["export"]) == 1
    assert "holds files sphragis did not write" in capsys.readouterr().err
    assert sorted(p.name for p in project.iterdir()) == ["notes.md"]
    assert (project / "notes.md").read_text(encoding="utf-8") == "my notes\n"


def test_export_into_the_data_folder_is_refused(tiny_exported, monkeypatch, capsys):
    before = _listing(tiny_exported.data)
    use_settings(monkeypatch, tiny_exported)
    monkeypatch.setenv("SPHRAGIS_OUT", str(tiny_exported.data))
    assert cli.main(["export"]) == 1
    assert f"may not be, hold or lie inside {tiny_exported.data}, which it reads" in capsys.readouterr().err
    assert _listing(tiny_exported.data) == before


def test_a_second_export_rewrites_its_own_marked_folder(tiny_exported, tmp_path):
    settings = dataclasses.replace(tiny_exported, out=tmp_path / "export")
    writer.export(settings)
    assert (settings.out / OUTPUT_MARKER).read_text(encoding="utf-8") == "export\n"
    writer.export(settings, full=True)  # replaces its own folder
    assert (settings.out / "README.md").is_file()


def test_docs_treebank_and_folds_into_a_user_folder_are_refused(tiny_exported, user_folder, monkeypatch):
    from sphragis.workbench import site

    before = _listing(user_folder)
    use_settings(monkeypatch, tiny_exported)
    with pytest.raises(OutputRefused, match="holds files sphragis did not write"):
        site.build_site(user_folder, tiny_exported.warehouse)
    with pytest.raises(OutputRefused, match="holds files sphragis did not write"):
        treebank.export_treebank(user_folder, warehouse=tiny_exported.warehouse, validate=False)
    with pytest.raises(OutputRefused, match="holds files sphragis did not write"):
        folds.write_folds(user_folder, warehouse=tiny_exported.warehouse, validate=False)
    # another command's output (the training treebank's) is not the folds'
    tb = user_folder.with_name("tb")
    treebank.export_treebank(tb, warehouse=tiny_exported.warehouse, validate=False)
    with pytest.raises(OutputRefused, match="not a folds output"):
        folds.write_folds(tb, warehouse=tiny_exported.warehouse, validate=False)
    # the benchmark export is the docs' input and another command's output: refused too
    with pytest.raises(OutputRefused):
        site.build_site(tiny_exported.out, tiny_exported.warehouse)
    assert _listing(user_folder) == before


def test_warehouse_on_a_fifo_or_a_device_is_refused(tiny_exported, tmp_path):
    fifo = tmp_path / "wh.fifo"
    os.mkfifo(fifo)
    with pytest.raises(OutputRefused, match="exists and is not a regular file"):
        build.build(dataclasses.replace(tiny_exported, warehouse=fifo))
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # /dev/null's numbers
    except PermissionError:
        return  # not root: the FIFO above is the same rule
    with pytest.raises(OutputRefused, match="exists and is not a regular file"):
        build.build(dataclasses.replace(tiny_exported, warehouse=device))
    assert stat.S_ISCHR(os.lstat(device).st_mode)


# --------------------------------------------------------------------------------------------
# single files: the shell and the scorer


def test_sql_output_never_replaces_the_warehouse(tiny_exported, tmp_path, monkeypatch, capsys):
    wh = tmp_path / "warehouse.duckdb"
    wh.write_bytes(tiny_exported.warehouse.read_bytes())
    before = _sha(wh)
    use_settings(monkeypatch, dataclasses.replace(tiny_exported, warehouse=wh))
    for target in (wh, wh.with_name(wh.name + ".manifest.json")):
        assert cli.main(["sql", "select 1 as x", "--output", str(target)]) == 1
        assert f"{target}: may not write {wh}" in capsys.readouterr().err
    assert _sha(wh) == before
    # nor anything under the export or the sources
    for target in (tiny_exported.out / "README.md", tiny_exported.data / "x.csv"):
        assert cli.main(["sql", "select 1 as x", "--output", str(target)]) == 1
        assert "may not write into" in capsys.readouterr().err


def test_sql_output_replaces_an_existing_file_only_with_force(tiny_exported, tmp_path, monkeypatch, capsys):
    use_settings(monkeypatch, tiny_exported)
    mine = tmp_path / "result.csv"
    mine.write_text("keep me\n", encoding="utf-8")
    assert cli.main(["sql", "select 1 as x", "--format", "csv", "--output", str(mine)]) == 1
    assert f"{mine} exists; choose another file, or pass --force to replace it" in capsys.readouterr().err
    assert mine.read_text(encoding="utf-8") == "keep me\n"
    assert cli.main(["sql", "select 1 as x", "--format", "csv", "--output", str(mine), "--force"]) == 0
    assert mine.read_text(encoding="utf-8") == "x\n1\n"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert cli.main(["sql", "select 1 as x", "--output", str(fifo), "--force"]) == 1
    assert "exists and is not a regular file" in capsys.readouterr().err


def test_sql_f_follows_links_before_the_suffix_check(tiny_exported, tmp_path, monkeypatch, capsys):
    use_settings(monkeypatch, tiny_exported)
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET line one\n", encoding="utf-8")
    link = tmp_path / "innocent.sql"
    link.symlink_to(secret)
    assert cli.main(["sql", "-f", str(link)]) == 1
    err = capsys.readouterr().err
    assert "TOPSECRET" not in err
    assert f"-f reads only regular .sql files or analyses; {link} is not one" in err


def test_sql_table_reads_one_file_literally(tiny_exported, tmp_path, monkeypatch, capsys):
    use_settings(monkeypatch, tiny_exported)
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "a.csv").write_text("v\n1\n", encoding="utf-8")
    (folder / "b.csv").write_text("v\n2\n", encoding="utf-8")
    assert cli.main(["sql", "--table", f"t={folder}/*.csv", "select count(*) from t"]) == 1
    assert "no such regular file" in capsys.readouterr().err
    (folder / "*.csv").write_text("v\n7\n", encoding="utf-8")  # a file really named *.csv
    assert cli.main(["sql", "--table", f"t={folder}/*.csv", "--format", "csv", "select sum(v) as s from t"]) == 0
    assert capsys.readouterr().out == "s\n7\n"


def test_score_outputs_may_not_point_into_the_export(tiny_exported, tmp_path, monkeypatch, capsys):
    export = tmp_path / "export"
    export.mkdir()
    report = export / config.LEAKAGE_REPORT
    report.parent.mkdir()
    report.write_text('{"markup_author": {}}\n', encoding="utf-8")
    use_settings(monkeypatch, dataclasses.replace(tiny_exported, out=export))
    for option, target in (("--json", report), ("--markdown", export / "README.md")):
        assert cli.main(["score", str(tmp_path / "preds.jsonl"), option, str(target)]) == 1
        assert f"{target}: may not write into {export}" in capsys.readouterr().err
    assert report.read_text(encoding="utf-8") == '{"markup_author": {}}\n'
    assert not (export / "README.md").exists()
