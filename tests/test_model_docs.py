"""Every seed and every staging model documented and tested; only staging reads the raw layer; a
test that compares a column with a seed's values names the seed.

The rules (models/README.md "Layers and the contract between them"): staging renames and types
the raw tables and is the only layer that reads them (``source()``); a seed's yml entry cites
where its rule comes from (a SPEC section or seed 000/001) and documents every CSV
column; keys carry ``unique``/``not_null``; a published inventory or project list lives in one
seed, and a column checked against it uses a ``relationships`` test to that seed, not an
``accepted_values`` copy of its values.
"""

from __future__ import annotations

import csv
import re

import duckdb
import pytest

from sphragis import config, runner

#: Where a seed's rule comes from, as the docs cite it (docs/spec.md: "SPEC §N", seed 000/001).
RULE_SOURCE = re.compile(r"SPEC §\d|seed 00[01]", re.I)


@pytest.fixture(scope="module")
def project() -> runner.Project:
    return runner.load_project()


#: Relations without a key, and why (every other seed and staging model has a key test).
NO_KEY = {"stg_raw__ingest_rejects": "ingest_rejects has none: one file or line can hold several rejected inputs"}


def _tests(spec: dict) -> list:
    return list(spec.get("data_tests") or []) + list(spec.get("tests") or [])


def _csv_header(name: str) -> list[str]:
    with (config.SEEDS_DIR / f"{name}.csv").open(encoding="utf-8", newline="") as f:
        return next(csv.reader(f))


def _key_tested(spec: dict) -> bool:
    """A column with ``unique`` and ``not_null``, or a model-level ``unique_combination``."""
    if any(isinstance(t, dict) and "unique_combination" in t for t in _tests(spec)):
        return True
    return any({"unique", "not_null"} <= {t for t in _tests(c) if isinstance(t, str)}
               for c in spec.get("columns") or [])


def undocumented(spec: dict | None, columns: list[str]) -> list[str]:
    """What a yml entry lacks: its description, a yml entry or a description for each of
    ``columns`` (the relation's real columns, in order), or a key test (unless NO_KEY says why not)."""
    if spec is None:
        return ["no yml entry"]
    problems = [] if (spec.get("description") or "").strip() else ["no description"]
    documented = {c["name"]: c for c in spec.get("columns") or []}
    problems += [f"column {c} undocumented" for c in columns
                 if not (documented.get(c, {}).get("description") or "").strip()]
    problems += [f"yml column {c} is not a column" for c in documented if c not in columns]
    if not _key_tested(spec) and spec["name"] not in NO_KEY:
        problems.append("no key test (unique + not_null, or unique_combination)")
    return problems


def test_every_seed_is_documented_and_tested(project):
    assert len(project.seeds) >= 26
    problems = {}
    for name in sorted(project.seeds):
        spec = project.schema.get(name)
        found = undocumented(spec, _csv_header(name))
        if spec is not None and not RULE_SOURCE.search(spec.get("description") or ""):
            found.append("description cites no rule source (SPEC §N, seed 000/001)")
        if found:
            problems[name] = found
    assert not problems, f"seeds to document in models/_seeds.yml: {problems}"


def _staging_columns(project: runner.Project) -> dict[str, list[str]]:
    """The columns of every staging model, from its rendered SQL over the empty raw layer."""
    con = duckdb.connect()
    con.execute((config.DDL_DIR / "raw.sql").read_text(encoding="utf-8"))
    raw = {t for (t,) in con.execute("select table_name from duckdb_tables()").fetchall()}
    for src, spec in project.sources.items():  # a raw table created outside raw.sql: its yml columns
        table = src.split(".", 1)[1]
        if table not in raw:
            con.execute(f"create table {table} ({', '.join(c['name'] + ' varchar' for c in spec['columns'])})")
    out = {}
    for name in sorted(n for n in project.models if runner.layer(n) == "staging"):
        sql = runner.render(project, name)
        out[name] = [r[0] for r in con.execute(f"describe ({sql})").fetchall()]
    return out


def test_every_staging_model_is_documented_and_tested(project):
    columns = _staging_columns(project)
    # every project's sentences and tokens (nine projects), PapyGreek's words, documents, hands,
    # persons and annotators, UNESP's site listing, and the four raw tables the models report on
    assert len(columns) == 28 and {"stg_raw__files", "stg_raw__ingest_rejects", "stg_raw__pin_missing_files",
                                   "stg_raw__file_elements"} <= set(columns)
    problems = {n: p for n, cols in columns.items() if (p := undocumented(project.schema.get(n), cols))}
    assert not problems, f"staging models to document (models/staging/_staging.yml): {problems}"


def _comment_free(sql: str) -> str:
    return re.sub(r"--[^\n]*", "", sql)


def test_only_staging_reads_the_raw_layer(project):
    raw = {s.split(".", 1)[1] for s in project.sources}
    assert {"raw_files", "raw_sentences", "raw_tokens", "ingest_rejects", "pin_missing_files"} <= raw
    # a bare table name read by FROM or JOIN (a column alias such as `as raw_sentences` is no read)
    bare = re.compile(r"\b(?:from|join)\s+(" + "|".join(sorted(raw)) + r")\b", re.IGNORECASE)
    readers = {}
    for name, m in sorted(project.models.items()):
        if runner.layer(name) == "staging":
            continue
        named = sorted(f"source({s}, {t})" for s, t in m.sources)
        named += sorted(set(bare.findall(_comment_free(runner.render(project, name)))))
        if named:
            readers[name] = named
    assert not readers, f"models outside staging that read the raw layer (read a stg_* model instead): {readers}"


def seed_value_copies(schema: dict, seeds) -> list[str]:
    """``accepted_values`` tests whose list is a seed column's distinct values (or all but one of
    them, e.g. the published UPOS = upos_from_tag.upos without PUNCT): each should be a
    ``relationships`` test to that seed. A seed's tests on its own columns are the home of the list."""
    values = {}
    for seed in seeds:
        with (config.SEEDS_DIR / f"{seed}.csv").open(encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                for col, v in row.items():
                    if v != "":
                        values.setdefault((seed, col), set()).add(v)
    found = []
    for name, spec in sorted(schema.items()):
        for col in spec.get("columns") or []:
            for t in _tests(col):
                if not (isinstance(t, dict) and "accepted_values" in t):
                    continue
                args = t["accepted_values"] or {}
                listed = {str(v) for v in (args.get("arguments") or args)["values"]}  # both dbt forms
                for (seed, scol), vals in sorted(values.items()):
                    if seed != name and len(listed) >= 2 and listed <= vals and len(listed) >= len(vals) - 1:
                        found.append(f"{name}.{col['name']}: accepted_values copies {seed}.{scol}")
    return found


def test_no_yml_list_copies_a_seed(project):
    copies = seed_value_copies(project.schema, project.seeds)
    assert not copies, "use {relationships: {to: \"ref('<seed>')\", field: <column>}} instead: " + "; ".join(copies)
    # the check sees a copy: the UPOS list the intermediate yml once repeated
    upos = {"name": "upos", "data_tests": [{"accepted_values": {"values": [
        "NOUN", "VERB", "ADJ", "PRON", "ADV", "ADP", "NUM", "INTJ", "X"]}}]}
    schema = {**project.schema, "int_published_tokens": {"columns": [upos]}}
    assert seed_value_copies(schema, project.seeds) == [
        "int_published_tokens.upos: accepted_values copies ud_upos_to_tag.published_upos",
        "int_published_tokens.upos: accepted_values copies upos_from_tag.upos"]


def test_relationships_to_seeds_are_compiled(project):
    # the converted tests run as anti-joins against the seed tables
    compiled = {(t.model, t.description): t.sql for t in runner.data_tests(project, {"int_sentences", "int_published_tokens"})}
    assert ("int_sentences", "relationships(to projects.project)(project)") in compiled
    assert "from deprel_published y where y.deprel = x.deprel" in compiled[
        ("int_published_tokens", "relationships(to deprel_published.deprel)(deprel)")]
