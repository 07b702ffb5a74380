"""Data tests (declared in the yml schema files) and SQL tests (``sql/tests/*.sql``) compiled to
queries selecting the failing rows (:class:`CompiledTest`), and :func:`check`, which runs one."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import duckdb

from .base import CompiledTest, Failure, ModelError
from .project import REF, test_args, tests_of
from .render import renderer

if TYPE_CHECKING:
    from .project import Project


def data_tests(project: Project, only: set[str] | None = None) -> list[CompiledTest]:
    """Every declared data test (of the models and seeds in ``only``, default all), by model name.

    Model-level ``unique_combination: {combination_of_columns: [cols]}`` and ``expression:
    {expression: <sql, may ref()>}``; column-level ``unique``, ``not_null``, ``accepted_values:
    {values: [...]}``, ``relationships: {to: ref('x'), field: y}`` — arguments as dbt takes them,
    also under ``arguments:`` (:func:`sphragis.runner.project.test_args`); dbt runs the two
    model-level ones from ``sql/dbt/generic_tests.sql``.

    Raises:
        ModelError: an unknown test (names the schema file).
    """
    out = []
    for model, spec in sorted(project.schema.items()):
        if only is not None and model not in only:
            continue
        for t in tests_of(spec):
            if isinstance(t, dict) and "unique_combination" in t:
                cols = ", ".join(test_args(t, "unique_combination")["combination_of_columns"])
                out.append(_case(model, f"unique_combination({cols})",
                                 f"select {cols}, count(*) as n from {model} group by all having count(*) > 1"))
            elif isinstance(t, dict) and "expression" in t:
                # the expression may ref() a seed or model (dbt renders test arguments the same way)
                expr, rec = renderer(project).render_string(test_args(t, "expression")["expression"], spec["_file"])
                out.append(_case(model, f"expression({expr})",
                                 f"select * from {model} where not coalesce(({expr}), false)",
                                 sorted({model, *rec.get("refs", ())})))
            else:
                raise ModelError(f"{spec['_file']}: unknown model-level test {t!r} on {model}")
        for col in spec.get("columns", []) or []:
            c = col["name"]
            for t in tests_of(col):
                deps = [model]
                if t == "unique":
                    sql = f"select {c}, count(*) as n from {model} where {c} is not null group by 1 having count(*) > 1"
                elif t == "not_null":
                    sql = f"select * from {model} where {c} is null"
                elif isinstance(t, dict) and "accepted_values" in t:
                    vals = ", ".join("'" + str(v).replace("'", "''") + "'"
                                     for v in test_args(t, "accepted_values")["values"])
                    sql = f"select {c}, count(*) as n from {model} where {c} is not null and {c}::varchar not in ({vals}) group by 1"
                    t = "accepted_values"
                elif isinstance(t, dict) and "relationships" in t:
                    args = test_args(t, "relationships")
                    m = REF.search(args["to"])
                    to = m.group(1) if m else args["to"]
                    field_ = args["field"]
                    sql = (f"select x.{c}, count(*) as n from {model} x where x.{c} is not null and not exists "
                           f"(select 1 from {to} y where y.{field_} = x.{c}) group by 1")
                    t = f"relationships(to {to}.{field_})"
                    deps = sorted({model, to})
                else:
                    raise ModelError(f"{spec['_file']}: unknown test {t!r} on {model}.{c}")
                out.append(_case(model, f"{t}({c})", sql, deps))
    return out


def _case(model: str, description: str, sql: str, deps: list[str] | None = None) -> CompiledTest:
    return CompiledTest(f"test.{model}.{description}", model, description, sql, tuple(deps or [model]))


def sql_tests(project: Project, variables: dict | None = None) -> list[CompiledTest]:
    """Every SQL test (``sql/tests/*.sql``, a query that must return no rows), rendered, by name.

    Raises:
        ModelError: the template does not render (names the file and line).
    """
    r = renderer(project)
    return [CompiledTest(f"sql_test.{name}", None, f"sql test {t.path.name}", r.render(t.path, variables)[0],
                         tuple(sorted(t.refs)), path=t.path)
            for name, t in sorted(project.sql_tests.items())]


def check(con: duckdb.DuckDBPyConnection, test: CompiledTest) -> list[Failure]:
    """Run ``test`` on ``con``: no failure when its query returns no rows, else one naming the
    number of failing rows and up to five of them (nested values left out). A query that fails
    is a failure too (DuckDB's message). A unit test first lays out its given rows
    (:meth:`sphragis.runner.unittests.UnitTest.given`) in temporary tables, dropped after.

    Returns:
        [] or one :class:`Failure` (model, description with the file of a SQL or unit test, detail).
    """
    desc = f"{test.path}: {test.description}" if test.path else test.description
    model = test.model or test.id
    try:
        with (test.unit.given(con) if test.unit is not None else contextlib.nullcontext()):
            n = con.execute(f"select count(*) from ({test.sql})").fetchone()[0]
            if not n:
                return []
            cur = con.execute(f"select * from ({test.sql}) limit 5")
            names = [d[0] for d in cur.description]
            sample = "; ".join(
                ", ".join(f"{k}={_short(v)}" for k, v in zip(names, row) if not isinstance(v, (list, dict)))
                for row in cur.fetchall())
    except (duckdb.Error, ModelError) as exc:
        return [Failure(model, desc, f"test query failed: {exc}")]
    return [Failure(model, desc, f"{n} failing row(s), e.g. {sample}")]


def _short(v: object) -> str:
    s = repr(v)
    return s if len(s) <= 60 else s[:57] + "..."
