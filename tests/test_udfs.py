"""The project's scalar functions (sphragis.udfs) on connections that share one database."""

from __future__ import annotations

import duckdb

from sphragis import udfs


def test_two_connections_of_one_process_to_one_file_both_get_the_functions(tmp_path):
    # DuckDB gives two connections of one process to the same file one database and one function
    # catalog: the second register() found lower_grc "already exists" and failed (the treebank
    # export beside an open read-only connection to the warehouse did)
    path = str(tmp_path / "w.duckdb")
    duckdb.connect(path).close()
    first = duckdb.connect(path, read_only=True)
    udfs.register(first)
    second = duckdb.connect(path, read_only=True)
    udfs.register(second)
    assert second.execute("select lower_grc('Λόγος'), nfd('ά') = nfc(nfd('ά'))").fetchone() == ("λόγος", False)
    udfs.register(first.cursor())
    first.close()
    assert second.execute("select grave_to_acute('καὶ')").fetchone() == ("καί",)
    second.close()
