"""dbt-style unit tests (dbt ≥ 1.8 ``unit_tests:`` in the yml schema files, ``format: dict``).

::

    unit_tests:
      - name: crasis_is_rejoined
        model: int_split_words
        given:                      # every model and source the model reads (a seed not given
          - input: ref('int_tokens')  #   is read as it is, as dbt does)
            rows: [{sentence_uid: 1, token_pos: 1, form: καί}, ...]
          - input: source('raw', 'raw_tokens')
            rows: []
        overrides: {vars: {min_cell_tokens: 1}}   # optional
        expect:
          rows: [{surface: κἀγώ, resolution: crasis}]

A unit test runs the model's SQL with each given input replaced by its rows (a temporary table of
the input's own columns and types, the columns a row leaves out NULL) and compares the output with
the expected rows as a multiset over the columns the expected rows name (dbt's comparison). It runs
beside the model's data tests in every build that builds the model (and is skipped, like them,
when it passed before on the same fingerprints); a failure names the yml file and the test, with
the rows expected and not produced (``expected, not in output``) and the reverse.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from .base import CompiledTest, ModelError
from .render import renderer

if TYPE_CHECKING:
    from .project import Project

_INPUT = re.compile(r"""^\s*(?:ref\(\s*['"]([^'"]+)['"]\s*\)"""
                    r"""|source\(\s*['"]([^'"]+)['"]\s*,\s*['"]([^'"]+)['"]\s*\))\s*$""")
_PREFIX = "__unit_given__"
_KEYS = {"name", "model", "description", "given", "expect", "overrides", "config", "_file"}


@dataclass(frozen=True)
class Given:
    """One given input: ``key`` (a ref name or ``"<source>.<table>"``), the real ``table`` whose
    columns and types it takes, the temporary table ``alias`` the model reads instead, its rows."""

    key: str
    table: str
    alias: str
    rows: tuple


@dataclass(frozen=True)
class UnitTest:
    """A unit test's given inputs and expected rows (the comparison is :attr:`CompiledTest.sql`)."""

    name: str
    model_sql: str
    given_inputs: tuple[Given, ...]
    expect_rows: tuple
    expect_columns: tuple[str, ...]

    @contextlib.contextmanager
    def given(self, con: duckdb.DuckDBPyConnection) -> Iterator[None]:
        """Create the temporary tables (this cursor's own) holding the given and expected rows;
        drop them on exit.

        Raises:
            ModelError: a row names a column its input does not have, or a value does not convert
                to the column's type (names the input and DuckDB's message).
        """
        made = []
        try:
            for g in self.given_inputs:
                con.execute(f"create or replace temp table {g.alias} as select * from {g.table} limit 0")
                made.append(g.alias)
                _insert(con, g.alias, g.rows, f"given {g.key}")
            if self.expect_columns:
                con.execute(f"create or replace temp table {_PREFIX}expect as select {', '.join(self.expect_columns)} "
                            f"from (\n{self.model_sql}\n) limit 0")
                made.append(f"{_PREFIX}expect")
                _insert(con, f"{_PREFIX}expect", self.expect_rows, "expect")
            yield
        finally:
            for t in made:
                con.execute(f"drop table if exists temp.{t}")


def _insert(con: duckdb.DuckDBPyConnection, table: str, rows: tuple, what: str) -> None:
    columns = list(dict.fromkeys(k for r in rows for k in r))
    if not columns:
        return
    known = {r[0] for r in con.execute(f"select column_name from (describe {table})").fetchall()}
    unknown = [c for c in columns if c not in known]
    if unknown:
        raise ModelError(f"{what}: no column {', '.join(unknown)} (columns: {', '.join(sorted(known))})")
    try:
        con.executemany(f"insert into {table} ({', '.join(columns)}) values ({', '.join('?' * len(columns))})",
                        [[r.get(c) for c in columns] for r in rows])
    except duckdb.Error as exc:
        raise ModelError(f"{what}: rows do not convert to the columns' types: {exc}") from exc


def _where(spec: dict) -> str:
    """``<file>:<line>: unit test <name> of <model>`` (the line of its ``name:`` in the file)."""
    line = 1
    try:
        text = Path(spec["_file"]).read_text(encoding="utf-8").splitlines()
        pat = re.compile(r"^\s*-?\s*name:\s*['\"]?" + re.escape(str(spec.get("name"))) + r"['\"]?\s*$")
        line = next((i for i, t in enumerate(text, start=1) if pat.match(t)), 1)
    except OSError:
        pass
    return f"{spec['_file']}:{line}: unit test {spec.get('name')} of {spec.get('model')}"


def _inputs(project: Project, spec: dict) -> dict[str, str]:
    """Given input key (ref name or ``source.table``) → the real table, checked against the model."""
    where = _where(spec)
    m = project.models[spec["model"]]
    out: dict[str, str] = {}
    for g in spec.get("given") or []:
        if not isinstance(g, dict) or "input" not in g:
            raise ModelError(f"{where}: each given needs `input: ref('x')` or `input: source('s', 't')` and `rows`")
        if g.get("format", "dict") != "dict":
            raise ModelError(f"{where}: only `format: dict` rows are supported, not {g['format']!r}")
        hit = _INPUT.match(str(g["input"]))
        if not hit:
            raise ModelError(f"{where}: input {g['input']!r} is not ref('x') or source('s', 't')")
        key, table = (hit[1], hit[1]) if hit[1] else (f"{hit[2]}.{hit[3]}", hit[3])
        read = key in m.refs if hit[1] else (hit[2], hit[3]) in m.sources
        if not read:
            raise ModelError(f"{where}: {g['input']} is not an input of {m.name}")
        if not isinstance(g.get("rows"), list) or not all(isinstance(r, dict) for r in g["rows"]):
            raise ModelError(f"{where}: rows of {g['input']} must be a list of mappings (`rows: []` for none)")
        out[key] = table
    return out


def check_declared(project: Project) -> None:
    """Check every unit test of ``project`` (called by :func:`sphragis.runner.load_project`).

    Raises:
        ModelError: naming the yml file, line and test: an unknown key or model, an input that is
            not ``ref()``/``source()`` of the model, a model or source input not given (seeds may be
            left out), rows that are not a list of mappings, no ``expect: {rows: [...]}``.
    """
    for spec in project.unit_tests.values():
        where = _where(spec)
        extra = sorted(set(spec) - _KEYS)
        if extra or not spec.get("name"):
            raise ModelError(f"{where}: unknown key(s) {', '.join(extra)}" if extra else f"{where}: no name")
        if spec.get("model") not in project.models:
            raise ModelError(f"{where}: unknown model {spec.get('model')!r}")
        m = project.models[spec["model"]]
        given = _inputs(project, spec)
        needed = {r for r in m.refs if r in project.models} | {f"{s}.{t}" for s, t in m.sources}
        missing = sorted(needed - set(given))
        if missing:
            raise ModelError(f"{where}: no given rows for {', '.join(missing)} (every model and source the "
                             "model reads needs a `given`, `rows: []` for none; a seed left out is read as it is)")
        expect = spec.get("expect")
        if not isinstance(expect, dict) or not isinstance(expect.get("rows"), list) or \
                not all(isinstance(r, dict) for r in expect["rows"]) or expect.get("format", "dict") != "dict":
            raise ModelError(f"{where}: expect needs `rows:`, a list of mappings (format dict)")
        if set(spec.get("overrides") or {}) - {"vars"}:
            raise ModelError(f"{where}: only `overrides: {{vars: ...}}` is supported")


def unit_tests(project: Project, variables: dict | None = None) -> list[CompiledTest]:
    """Every unit test of ``project`` compiled (sorted by model and name): the model rendered with
    its given inputs renamed to their temporary tables, and the comparison query (rows of the
    expected multiset missing from the output, and output rows not expected, with ``problem``).

    Raises:
        ModelError: the model does not render (names the file and line).
    """
    r = renderer(project)
    out = []
    for key, spec in sorted(project.unit_tests.items()):
        m = project.models[spec["model"]]
        inputs = _inputs(project, spec)
        rename = {k: _PREFIX + re.sub(r"\W", "_", k) for k in inputs}
        given = tuple(Given(k, inputs[k], rename[k], tuple(g["rows"]))
                      for k, g in zip(inputs, spec.get("given") or []))
        variables_ = {**(variables or {}), **((spec.get("overrides") or {}).get("vars") or {})}
        model_sql = r.render(m.path, variables_, rename)[0]
        rows = tuple(spec["expect"]["rows"])
        cols = tuple(dict.fromkeys(c for row in rows for c in row))
        # the given and expected rows head the query as a comment: they are part of the test's
        # fingerprint (an edited row reruns it) and of its record in the manifest
        rows_doc = json.dumps({"given": {g.key: list(g.rows) for g in given}, "expect": list(rows)},
                              ensure_ascii=False, sort_keys=True, default=str)
        head = f"-- unit test {spec['name']} of {m.name}: {rows_doc}\n"
        if cols:
            listed = ", ".join(cols)
            sql = head + (f"with actual as (\n{model_sql}\n)\n"
                   f"(select 'expected, not in output' as problem, * from "
                   f"(from {_PREFIX}expect except all select {listed} from actual))\n"
                   f"union all\n(select 'in output, not expected' as problem, * from "
                   f"(select {listed} from actual except all from {_PREFIX}expect))")
        else:
            sql = head + f"with actual as (\n{model_sql}\n)\nselect 'in output, not expected' as problem, * from actual"
        reads = sorted({g.table for g in given if g.key in project.models or g.key in project.seeds}
                       | {g.key for g in given if "." in g.key}
                       | {s for s in m.refs if s in project.seeds})
        out.append(CompiledTest(f"unit_test.{m.name}.{spec['name']}", m.name, f"unit_test({spec['name']})", sql,
                                tuple(reads), path=Path(spec["_file"]),
                                unit=UnitTest(spec["name"], model_sql, given, rows, cols)))
    return out
