"""A sentence of 20,000 tokens builds in time and memory proportional to its size
(SPEC §13).

One full build over the fixture cuts (``test_atomic.tiny_sources``) plus the file of
:func:`sphragis.bench_inputs.long_sentence_file`: UD Perseus sentences ``flat`` (20,000 tokens, every one
under the root verb), ``chain`` (1,000 tokens, each under the one before: the deepest tree the
build accepts) and ``cycle`` (the root verb and a cycle of 999 tokens, each under the one after).
Every sixth token after the root is a comma, which the published tree removes.

The published rows are checked exactly. Size is checked structurally, not by a clock (``make
bench`` times and measures the peak RSS of the same two sentences): what the warehouse stores and
what each model's query plan carries stay within a small multiple of the raw tokens. A stored
``mart_published_tokens`` would repeat the flat sentence's dedup_key on each of its rows
(quadratic in the sentence's length), and a cycle walked up from each of its tokens would make
999² rows: int_tree_links finds cycles by pointer doubling instead.
"""

from __future__ import annotations

import json

import duckdb
import pytest
from rich.console import Console

from sphragis import bench_inputs, build, runner, udfs
from test_atomic import tiny_settings

FLAT_ID = f"{bench_inputs.LONG_DOCUMENT}@flat"
CHAIN_ID = f"{bench_inputs.LONG_DOCUMENT}@chain"
CYCLE_ID = f"{bench_inputs.LONG_DOCUMENT}@cycle"
#: Published tokens: the 20,000 (1,000) source tokens less their 3,333 (166) commas.
FLAT_PUBLISHED = 16_667
CHAIN_PUBLISHED = 834
#: What a table may store (characters of every value cast to text, summed) per character of
#: raw_tokens, and the rows any operator of a model's plan may carry per raw token: the largest
#: measured are 6.6 (the analysts' `tokens`, which holds the raw values beside the published ones,
#: with provenance), 1.9 (int_token_morphology) and 3.2 (mart_inventory_shares); the quadratic
#: mart_published_tokens table stored 900 times raw_tokens, and `tokens` with a per-token
#: dedup_key 1,047 times.
MAX_CHARS_PER_RAW_CHAR = 10
MAX_ROWS_PER_RAW_TOKEN = 10


@pytest.fixture(scope="module")
def long_build(tmp_path_factory):
    """(settings, read-only connection) of one full build over the fixture cuts + the long file."""
    settings = tiny_settings(tmp_path_factory.mktemp("long"))
    bench_inputs.long_sentence_file(settings.data / "ud-perseus")
    build.build(settings, out=Console(quiet=True))
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    con.execute("set enable_progress_bar = false")
    yield settings, con
    con.close()


def _uid(con, upstream_id: str) -> int:
    return con.execute("select sentence_uid from int_sentences where upstream_sentence_id = ?",
                       [upstream_id]).fetchone()[0]


def test_source_file_holds_both_sentences(long_build):
    _, con = long_build
    assert con.execute("""select s.upstream_sentence_id, s.n_tokens from raw_sentences s join raw_files f
                          using (file_id) where f.path = ? order by s.sentence_pos""",
                       [bench_inputs.LONG_FILE]).fetchall() == [(FLAT_ID, 20_000), (CHAIN_ID, 1_000), (CYCLE_ID, 1_000)]
    assert con.execute("select count(*) from ingest_rejects where path = ?", [bench_inputs.LONG_FILE]).fetchone()[0] == 0


def test_flat_sentence_published_under_its_root(long_build):
    _, con = long_build
    uid = _uid(con, FLAT_ID)
    heads = con.execute("select head, count(*) from int_tree_tokens where sentence_uid = ? group by head order by head",
                        [uid]).fetchall()
    assert heads == [(0, 1), (1, FLAT_PUBLISHED - 1)]
    assert con.execute("select i, deprel, repair from int_tree_tokens where sentence_uid = ? and head = 0",
                       [uid]).fetchall() == [(1, "root", None)]
    assert con.execute("select count(*) from int_tree_tokens where sentence_uid = ? and repair is not null",
                       [uid]).fetchone()[0] == 0
    assert con.execute("select n_tokens, n_reached, max_depth from int_tree_checks where sentence_uid = ?",
                       [uid]).fetchone() == (FLAT_PUBLISHED, FLAT_PUBLISHED, 1)
    # the analysts' token view has every published token, each carrying the sentence's dedup key
    rows, keys, chosen, key_len = con.execute("""select count(*), count(distinct dedup_key),
                                                 bool_and(is_chosen_parse), max(length(dedup_key))
                                                 from mart_published_tokens where sentence_uid = ?""",
                                              [uid]).fetchone()
    assert (rows, keys, chosen) == (FLAT_PUBLISHED, 1, True)
    assert key_len == len("λεγει") + 3333 * len("λογονκαλωσανηρσοφοσεν") + len("λογον") == 70_003


def test_chain_published_as_a_chain(long_build):
    _, con = long_build
    uid = _uid(con, CHAIN_ID)
    n, off_chain, top = con.execute("""select count(*), count(*) filter (where head <> i - 1),
                                       max(i) from int_tree_tokens where sentence_uid = ?""", [uid]).fetchone()
    assert (n, off_chain, top) == (CHAIN_PUBLISHED, 0, CHAIN_PUBLISHED)
    # the token after each comma climbs over it to the comma's head, the previous word
    assert con.execute("""select repair, count(*) from int_tree_tokens where sentence_uid = ? group by repair
                          order by repair nulls first""", [uid]).fetchall() == [
        (None, CHAIN_PUBLISHED - 166), ("reattached_from_punct", 166)]
    assert con.execute("select n_tokens, n_reached, max_depth from int_tree_checks where sentence_uid = ?",
                       [uid]).fetchone() == (CHAIN_PUBLISHED, CHAIN_PUBLISHED, CHAIN_PUBLISHED - 1)
    assert con.execute("select count(*) from mart_published_tokens where sentence_uid = ?",
                       [uid]).fetchone()[0] == CHAIN_PUBLISHED


def test_cycle_broken_at_its_first_token(long_build):
    _, con = long_build
    uid = _uid(con, CYCLE_ID)
    # token 2 (the cycle's smallest position) loses its head and hangs from the root; the rest of
    # the cycle is a chain below it, each token under the one after it
    assert con.execute("""select token_pos, i, head, repair from int_tree_tokens where sentence_uid = ?
                          and token_pos <= 2 order by token_pos""", [uid]).fetchall() == [
        (1, 1, 0, None), (2, 2, 1, "cycle")]
    assert con.execute("""select repair, count(*) from int_tree_tokens where sentence_uid = ? group by repair
                          order by repair nulls first""", [uid]).fetchall() == [
        (None, CHAIN_PUBLISHED - 167), ("cycle", 1), ("reattached_from_punct", 166)]
    assert con.execute("select n_tokens, n_reached, max_depth from int_tree_checks where sentence_uid = ?",
                       [uid]).fetchone() == (CHAIN_PUBLISHED, CHAIN_PUBLISHED, CHAIN_PUBLISHED - 1)


def _chars(con, table: str) -> int:
    cols = [c for (c,) in con.execute("""select column_name from duckdb_columns() where table_name = ?
                                         and schema_name = current_schema()""", [table]).fetchall()]
    total = " + ".join(f'coalesce(length("{c}"::varchar), 0)' for c in cols)
    return con.execute(f'select coalesce(sum({total}), 0) from "{table}"').fetchone()[0]


def test_stored_tables_grow_linearly(long_build):
    """No table stores more than a few times the characters of raw_tokens (a per-token column
    repeating a sentence-long value grows with the square of the sentence)."""
    _, con = long_build
    raw = _chars(con, "raw_tokens")
    assert raw > 1_000_000  # the long sentences dominate
    tables = [t for (t,) in con.execute("select table_name from duckdb_tables() where not internal").fetchall()]
    over = {t: round(c / raw, 1) for t in tables if (c := _chars(con, t)) > MAX_CHARS_PER_RAW_CHAR * raw}
    assert over == {}


def _operator_rows(node: dict):
    yield node.get("intermediate_rows", 0)
    for child in node.get("children", []):
        yield from _operator_rows(child)


def test_model_plans_carry_linear_rows(long_build):
    """Every operator of every model's query (EXPLAIN ANALYZE over the built warehouse) produces at
    most a few rows per raw token: no per-sentence self-join or pair list."""
    _, con = long_build
    udfs.register(con)
    raw = con.execute("select count(*) from raw_tokens").fetchone()[0]
    project = runner.load_project()
    largest = {}
    for name in project.models:
        sql = runner.render(project, name)
        plan = json.loads(con.execute("explain (analyze, format json) " + sql).fetchall()[0][1])
        largest[name] = max(r for op in plan["operator"] for r in _operator_rows(op))
    assert len(largest) == len(project.models)
    assert {m: n for m, n in largest.items() if n > MAX_ROWS_PER_RAW_TOKEN * raw} == {}
    assert largest["int_tree_tokens"] >= FLAT_PUBLISHED  # the profile does count the rows
