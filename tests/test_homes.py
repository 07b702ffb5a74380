"""One home for every rule: the benchmark's shape, the list of projects and the
evaluation folds are read from their seeds by both the SQL models and Python; the named queries
of ``sql/queries/`` are the SQL the Python modules run; no two modules import each other.
"""

from __future__ import annotations

import ast
import graphlib
import hashlib
import io
import re
import runpy
import subprocess
import tokenize
import tomllib
from pathlib import Path

import pytest
import yaml

from sphragis import audit, benchmark, config, report, runner
from sphragis.evaluation import overlap
from sphragis.export import writer
from sphragis.queries import QUERIES_DIR, query

REPO = Path(__file__).resolve().parents[1]
#: Import name of each source folder of the package (pyproject ``package-dir``).
PACKAGES = {"sphragis": REPO / "sphragis", "sphragis.export": REPO / "export", "sphragis.ingest": REPO / "ingest"}


def test_benchmark_shape_comes_from_the_seeds():
    # seed 000 "Configurations": two tracks x chunk sizes 1, 5, 10, 50, and the work-held-out track
    # (SPEC §8); splits train/validation/test
    assert benchmark.CONFIGS == ("sentence_1", "sentence_5", "sentence_10", "sentence_50", "source_held_out_1",
                                 "source_held_out_5", "source_held_out_10", "source_held_out_50",
                                 "work_held_out_1", "work_held_out_5", "work_held_out_10", "work_held_out_50")
    assert benchmark.TRACKS == ("main", "source_held_out", "work_held_out")
    assert benchmark.CHUNK_SIZES == (1, 5, 10, 50)
    assert benchmark.SPLITS == ("train", "validation", "test")
    assert benchmark.EVAL_SPLITS == ("validation", "test")
    assert benchmark.config_of("source_held_out", 10) == "source_held_out_10"
    assert benchmark.BY_NAME["sentence_50"] == benchmark.Config("sentence_50", "main", 50)
    # the exporter, the audit and the report use these very objects, not copies
    assert writer.CONFIGS is benchmark.CONFIGS and writer.SPLITS is benchmark.SPLITS
    assert audit.CONFIGS is benchmark.CONFIGS and report.CONFIGS is benchmark.CONFIGS


def test_projects_come_from_the_registry():
    # SPEC §7 priority order; the benchmark draws from seed 000's seven projects
    assert config.benchmark_projects() == ("ud_perseus", "ud_proiel", "ud_ptnk", "agdt", "gorman", "pedalion",
                                           "harrington")
    assert config.PROJECT_PRIORITY[:7] == list(config.benchmark_projects())
    seed = {p["project"]: p["treebank_source"] for p in config.projects()}
    pins = {(s["project"], s["treebank_source"]) for s in config.snapshots()}
    # every pinned snapshot names a seed project with the same display name, and every project is pinned
    assert pins == set(seed.items())
    assert overlap.PROJECTS == ("agdt", "gorman", "pedalion", "harrington")
    assert [f[0] for f in overlap.FOLDS] == ["ud_perseus-dev", "ud_perseus-test", "ud_proiel-dev", "ud_proiel-test"]


def test_build_variables_have_one_home():
    # the runner renders var() from config.BUILD_VARS; the export-treebank defaults are its subset
    assert runner.DEFAULT_VARS is config.BUILD_VARS
    assert config.BUILD_VARS["split_seed"] == config.SPLIT_SEED == 776
    assert config.BUILD_VARS["min_author_rows"] == 50 and config.BUILD_VARS["min_cell_tokens"] == 1000
    assert {k: config.BUILD_VARS[k] for k in config.TRAINING_TREEBANK_VARS} == config.TRAINING_TREEBANK_VARS
    # var('projects'): the project registry in priority order; var('edition_variants'): the
    # seed edition_variants in variant_order; var('layer_attributes'): the seed layer_attributes
    assert runner.project_vars() == {**config.BUILD_VARS, "projects": [dict(p) for p in config.projects()],
                                     "edition_variants": [dict(v) for v in config.edition_variants()],
                                     "layer_attributes": [dict(a) for a in config.layer_attributes()]}
    # the linter (make lint) renders var() with the runner's own defaults, no copy of them
    sqlfluff = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["sqlfluff"]["templater"]
    assert "var" not in sqlfluff["jinja"]["macros"] and "context" not in sqlfluff["jinja"]
    lint = runpy.run_path(str(REPO / sqlfluff["jinja"]["library_path"] / "__init__.py"))
    assert lint["var"]("projects") == runner.project_vars()["projects"] and lint["var"]("split_seed") == 776


def test_models_take_the_projects_from_the_seed():
    project = runner.load_project()
    # union_staged: AGDT-scheme projects, then UD, each in priority order
    assert re.findall(r"from (stg_\w+__sentences)", runner.render(project, "int_sentences")) == [
        "stg_agdt__sentences", "stg_gorman__sentences", "stg_pedalion__sentences", "stg_harrington__sentences",
        "stg_papygreek__sentences", "stg_unesp__sentences", "stg_ud_perseus__sentences", "stg_ud_proiel__sentences",
        "stg_ud_ptnk__sentences"]
    assert re.findall(r"\bas (n_[a-z]+),", runner.render(project, "mart_relation_rules"))[1:5] == [
        "n_agdt", "n_gorman", "n_pedalion", "n_harrington"]
    # the UPOS+FEATS-derived tags: the registry's tag_source
    assert "where project in ('ud_proiel', 'ud_ptnk') and upos is not null" in runner.render(
        project, "int_token_morphology")


def test_a_bad_seed_names_its_file_and_line(tmp_path):
    (tmp_path / "benchmark_configs.csv").write_text(
        "config,track,chunk_target_size\nsentence_1,main,1\nsentence_5,main,five\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"benchmark_configs\.csv:3: chunk_target_size must be a positive integer"):
        benchmark.configs(tmp_path)
    (tmp_path / "benchmark_configs.csv").write_text("config,track\nsentence_1,main\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"benchmark_configs\.csv:1: expected the header"):
        benchmark.configs(tmp_path)
    (tmp_path / "benchmark_configs.csv").write_text(
        "config,track,chunk_target_size\nsentence_1,main\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"benchmark_configs\.csv:2: expected 3 fields, found 2"):
        benchmark.configs(tmp_path)


def _python_files() -> dict[str, Path]:
    mods = {}
    for pkg, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = [p for p in path.relative_to(folder).with_suffix("").parts if p != "__init__"]
            mods[".".join([pkg, *parts])] = path
    return mods


def test_every_named_query_is_used_and_exists():
    source = "\n".join(p.read_text(encoding="utf-8") for p in _python_files().values())
    used = set(re.findall(r"""\bquery\(\s*["']([a-z0-9_]+)["']\s*\)""", source))
    # a derivation query is used by the checked-in seed whose rows it derived (its provenance column)
    seeds = "\n".join(p.read_text(encoding="utf-8") for p in config.SEEDS_DIR.glob("*.csv"))
    used |= set(re.findall(r"sql/queries/([a-z0-9_]+)\.sql", seeds))
    on_disk = {p.stem for p in QUERIES_DIR.glob("*.sql")}
    assert used == on_disk
    # the named queries the build and the export run (ingest and the exporter's chunk lists) are among them
    assert {"ingest_raw_sentences", "ingest_raw_tokens", "variant_chunks"} <= used
    with pytest.raises(LookupError, match="no named query .*nonexistent.sql"):
        query("nonexistent")


#: SQL lines a module may hold in Python strings; the runner, which assembles model
#: DDL, is exempt.
MAX_SQL_LINES = 20
_SQL_STRING = re.compile(r"\bselect\b[\s\S]*\bfrom\b|\binsert into\b|\bcreate (or replace )?(temp )?(table|view|macro)\b"
                         r"|\bcopy\b.*\bto\b", re.I)


def sql_lines_in_strings(path: Path) -> int:
    """Lines of the non-docstring string constants of ``path`` that read as SQL (a select ... from,
    insert into, create table/view/macro or copy ... to)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return sum(node.value.count("\n") + 1 for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
               and _SQL_STRING.search(node.value))


def test_sql_lives_in_sql_files():
    assert sql_lines_in_strings(REPO / "sphragis" / "runner" / "datatests.py") > 0  # the scan sees SQL in strings
    lines = {mod: sql_lines_in_strings(path) for mod, path in _python_files().items()
             if mod.split(".")[:2] != ["sphragis", "runner"]}
    over = {mod: n for mod, n in lines.items() if n > MAX_SQL_LINES}
    assert not over, (f"modules with more than {MAX_SQL_LINES} lines of SQL in Python strings: {over}; move the "
                      "SQL to a model or a named query of sql/queries (sphragis.queries.query)")


#: The most lines one SQL string of a Python module may span (a longer SQL is a model or
#: a named query); the runner, which assembles model DDL, is exempt.
MAX_SQL_STRING_LINES = 3


#: How a SQL statement starts (a help text that says "copy ... to" does not).
_SQL_START = re.compile(r"\s*(?:select|with|insert|create|copy|update|delete|from)\b", re.I)


def long_sql_strings(path: Path, root: Path = REPO) -> list[str]:
    """``path:line`` of every non-docstring string of ``path`` that reads as SQL (starts as a
    statement, :data:`_SQL_START`, and matches :data:`_SQL_STRING`) and spans more than
    :data:`MAX_SQL_STRING_LINES` lines, in the source
    (implicitly concatenated literals and f-strings are one string) or in its value."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value
        else:
            continue
        lines = max(node.end_lineno - node.lineno + 1, text.count("\n") + 1)
        if lines > MAX_SQL_STRING_LINES and _SQL_START.match(text) and _SQL_STRING.search(text):
            found.append(f"{path.relative_to(root)}:{node.lineno} ({lines} lines)")
    return found


PROBE = '''def f(con, c):
    """Select x from y
    over four lines: a docstring is no SQL.
    """
    con.execute(f"select {c} "
                "from t "
                "where a "
                "and b")
    con.execute("select a from t "
                "where b")  # three lines at most: allowed
    return """
    select 1
    from t
    where c"""
'''


def test_no_sql_string_over_three_lines_outside_the_runner(tmp_path):
    # the scan finds one: a four-line f-string and a four-line triple-quoted string
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE, encoding="utf-8")
    assert sorted(long_sql_strings(probe, tmp_path)) == ["probe.py:11 (4 lines)", "probe.py:5 (4 lines)"]
    found = [hit for mod, path in sorted(_python_files().items()) if not mod.startswith("sphragis.runner")
             for hit in long_sql_strings(path)]
    assert not found, ("SQL strings over three lines outside the runner: " + ", ".join(found)
                       + "; make them a model (parameter-free) or a named query of sql/queries")


def test_no_import_cycles():
    mods = _python_files()

    def targets(mod: str, node: ast.AST) -> list[str]:
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        base = node.module or ""
        if node.level:
            parts = mod.split(".")
            if mods[mod].name != "__init__.py":
                parts = parts[:-1]
            parts = parts[:len(parts) - (node.level - 1)]
            base = ".".join(parts + ([node.module] if node.module else []))
        return [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]

    graph = {}
    for mod, path in mods.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):  # module level or inside functions
                deps.update(t for t in targets(mod, node) if t in mods and t != mod)
        graph[mod] = deps
    assert "sphragis.report" in graph["sphragis.audit"]  # `audit --report` renders the report
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        pytest.fail(f"import cycle: {' -> '.join(exc.args[1])}")


@pytest.mark.integration
def test_the_build_uses_the_seeds(real_warehouse):
    con = real_warehouse
    # every (configuration, split) cell of the seeds, once
    cells = con.execute("select config, split from mart_config_summary order by all").fetchall()
    assert cells == sorted((c, s) for c in benchmark.CONFIGS for s in benchmark.SPLITS)
    assert {c for (c,) in con.execute("select distinct config from mart_benchmark_rows").fetchall()} == set(
        benchmark.CONFIGS)
    assert {(k, t) for k, t in con.execute("select distinct chunk_target_size, track from mart_chunks").fetchall()} == {
        (c.chunk_target_size, c.track) for c in benchmark.BY_NAME.values() if c.chunk_target_size > 1}
    folds = con.execute("select distinct fold_project || '-' || fold from mart_eval_fold_overlap order by 1").fetchall()
    assert [f for (f,) in folds] == sorted(f[0] for f in overlap.FOLDS)


# --------------------------------------------------------------------------------------------
# Byte identity of the export (a refactor must not change the published bytes)

SHA256_DIR = REPO / "tests" / "fixtures" / "export_sha256"
_UPDATE = ("If the output change is intended, update {file} (`sha256sum` of the listed files, run in the "
           "export directory) in the same commit and say why in its message.")


def _check_sha256(out: Path, listing: Path) -> None:
    want = dict(reversed(line.split("  ", 1)) for line in listing.read_text(encoding="utf-8").splitlines())
    got = {rel: hashlib.sha256((out / rel).read_bytes()).hexdigest() for rel in want if (out / rel).is_file()}
    changed = sorted(rel for rel in want if got.get(rel) != want[rel])
    assert not changed, (f"export bytes differ from {listing.relative_to(REPO)} for {len(changed)} file(s): "
                         f"{', '.join(changed[:6])}{' ...' if len(changed) > 6 else ''}. "
                         + _UPDATE.format(file=listing.relative_to(REPO)))


def test_fixture_export_is_byte_identical(tiny_exported):
    # the fixture cuts (tests/fixtures/sources) built and exported (the session's first export of
    # them into an empty folder, tests/conftest.py): every file of the export, Parquet (their
    # schema and writer options; the cuts are too small for a published row), metadata JSON,
    # LICENSES.md and the dataset card
    settings = tiny_exported
    listing = SHA256_DIR / "fixture.sha256"
    written = sorted(str(p.relative_to(settings.out)) for p in settings.out.rglob("*") if p.is_file())
    assert written == sorted(line.split("  ", 1)[1] for line in listing.read_text(encoding="utf-8").splitlines())
    _check_sha256(settings.out, listing)


@pytest.mark.integration
def test_real_export_parquet_is_byte_identical(real_export):
    # the 36 Parquet files of the export of the pinned sources (`sphragis export --full`; a change
    # of the §5.1 word rules changes published forms and with them dedup keys, row order and chunks)
    _check_sha256(real_export, SHA256_DIR / "real.sha256")


# --------------------------------------------------------------------------------------------
# One home for each list and rule (Python side): each test fails when a second
# copy comes back (a re-typed list of the seed's values, a rule read from a name, a DDL string).


def _code_constants(path: Path) -> list[ast.AST]:
    """The nodes of ``path`` outside docstrings (string constants that are docstrings left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node for node in ast.walk(tree) if id(node) not in docstrings]


def _copies_of(values: set[str], at_least: int, skip: tuple[str, ...] = ()) -> dict[str, list[int]]:
    """Where a module writes ``at_least`` or more of ``values`` in one literal: a list, tuple or set
    of string constants, or one string whose words are among them (``"NOUN VERB ADJ".split()``).
    Returns {module: [line, ...]}."""
    found: dict[str, list[int]] = {}
    for mod, path in _python_files().items():
        if mod in skip:
            continue
        for node in _code_constants(path):
            if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
                items = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                items = node.value.split()
            else:
                continue
            if len(items) >= at_least and set(items) <= values:
                found.setdefault(mod, []).append(node.lineno)
    return found


def test_published_inventories_are_read_from_the_seeds():
    from sphragis.export import conllu_units

    upos = set(config.seed_values("upos_from_tag", "upos"))
    deprel = set(config.seed_values("deprel_published", "deprel"))
    feats = set(config.seed_values("feats_published_types", "feature"))
    assert conllu_units.UPOS_INVENTORY == upos - {"PUNCT"} and len(conllu_units.UPOS_INVENTORY) == 9
    assert conllu_units.DEPREL_INVENTORY == deprel and len(deprel) == 10
    assert conllu_units.FEATURE_TYPES == feats and len(feats) == 10
    for name, values in (("UPOS", upos), ("DEPREL", deprel), ("FEATS types", feats)):
        assert not _copies_of(values, 3), f"the published {name} inventory typed again in Python: read the seed"


def test_training_projects_have_one_home():
    from sphragis.export import treebank_options

    # the registry's in_training_treebank (seed 001: AGDT and the projects after its guidelines): the
    # training treebank's projects and the overlap manifests'
    assert config.training_projects() == ("agdt", "gorman", "pedalion", "harrington")
    assert config.TRAINING_TREEBANK_VARS["treebank_projects"] == list(config.training_projects())
    assert overlap.PROJECTS == config.training_projects()
    with pytest.raises(treebank_options.TreebankError, match="choose among agdt, gorman, pedalion, harrington"):
        treebank_options.variables(treebank_projects=["ud_ptnk"])
    assert not _copies_of(set(config.training_projects()), 3), "training projects listed again: config.training_projects()"


def test_evaluation_folds_are_read_from_their_seed():
    folds = config.evaluation_folds()
    names = [f["name"] for f in folds]
    assert names == ["ud_perseus-dev", "ud_perseus-test", "ud_proiel-dev", "ud_proiel-test"]
    assert config.TRAINING_TREEBANK_VARS["treebank_folds"] == names
    # seed 001: PROIEL is held out entirely (its works too), UD Perseus sentence by sentence
    assert config.TRAINING_TREEBANK_VARS["treebank_work_folds"] == [f["name"] for f in folds if f["exclude_works"]] \
        == ["ud_proiel-dev", "ud_proiel-test"]
    assert [f[0] for f in overlap.FOLDS] == names
    assert not _copies_of(set(names), 2), "evaluation folds listed again: config.evaluation_folds()"


def test_configuration_shape_is_read_from_the_benchmark_seed():
    from sphragis.export import layout

    assert [c for c in benchmark.CONFIGS if layout.is_chunked(c)] == [
        c for c in benchmark.CONFIGS if benchmark.BY_NAME[c].chunk_target_size > 1]
    # no module reads a configuration's shape from its name ("_1" suffix, the number after "_")
    found = {}
    for mod, path in _python_files().items():
        for node in _code_constants(path):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and any(isinstance(a, ast.Constant) and isinstance(a.value, str)
                            and (node.func.attr in ("endswith", "removesuffix") and re.fullmatch(r"_\d+", a.value)
                                 or node.func.attr == "rsplit" and a.value == "_") for a in node.args)):
                found.setdefault(mod, []).append(node.lineno)
    assert not found, f"configuration shape read from its name (use benchmark.BY_NAME): {found}"


def test_required_tables_are_checked_by_one_function(tmp_path):
    import duckdb

    from sphragis.queries import require_relations

    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute("create table int_units (x int)")
    con.execute("create view mart_published_tokens as select 1 as x")
    require_relations(con, ("int_units", "mart_published_tokens"))  # a view counts
    with pytest.raises(writer.ExportError, match=r"^warehouse w has no int_eligible_sentences, mart_x; rebuild it"):
        require_relations(con, ("int_units", "int_eligible_sentences", "mart_x"), writer.ExportError, "warehouse w")
    # the message and the catalog query are written once: no module but queries.py has them
    for mod, path in _python_files().items():
        text = path.read_text(encoding="utf-8")
        if mod != "sphragis.queries":
            assert "; rebuild it with `sphragis build`\"" not in text, f"{mod}: a second required-tables check"
        # the runner and the build look up their own manifest table, not a program's inputs
        if mod not in ("sphragis.queries", "sphragis.build", "sphragis.state") and not mod.startswith("sphragis.runner"):
            assert "from duckdb_tables()" not in text, f"{mod}: a second required-tables check"


def test_split_seed_is_one_constant():
    assert config.SPLIT_SEED == 776
    from sphragis.evaluation import bootstrap, definitions

    assert definitions.SEED is config.SPLIT_SEED and bootstrap.SEED is config.SPLIT_SEED
    found = {mod: [n.lineno for n in _code_constants(path) if isinstance(n, ast.Constant) and n.value == 776
                   and not isinstance(n.value, bool)]
             for mod, path in _python_files().items() if mod != "sphragis.config"}
    assert not {m: lines for m, lines in found.items() if lines}, "seed 776 written again: config.SPLIT_SEED"


def test_pin_missing_files_ddl_lives_in_raw_sql():
    from sphragis import pins

    ddl = (config.DDL_DIR / "raw.sql").read_text(encoding="utf-8")
    assert pins.ddl() in ddl and pins.ddl().startswith("create or replace table pin_missing_files (")
    for mod, path in _python_files().items():
        for node in _code_constants(path):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not re.search(r"table pin_missing_files\s*\(\s*\w+\s+varchar", node.value), (
                    f"{mod}:{node.lineno}: pin_missing_files DDL outside sql/ddl/raw.sql")


def test_license_prose_names_the_projects_of_the_seed(monkeypatch):
    from sphragis.export import metadata

    # every project the benchmark draws from is credited (the registry's attribution), and no
    # other; the prose is derived from the pin list and the registry
    monkeypatch.setattr(metadata, "license_rows", lambda con: [])
    md = metadata.licenses_md(None)
    assert "* **NonCommercial** (UD Perseus: CC BY-NC-SA 2.5; UD PROIEL: CC BY-NC-SA 3.0): rows" in md
    assert "* **ShareAlike** (all seven sources): adaptations" in md
    credit = {p["project"]: p["attribution"] for p in config.projects()}
    assert md.index(credit["agdt"]) < md.index(credit["ud_perseus"]) < md.index(credit["harrington"])
    assert all((credit[p] in md) == (p in config.benchmark_projects()) for p in credit)
    # a source under another license changes the prose, which lists no project by hand
    snaps = tuple({**s, "license": "CC BY 4.0"} if s["project"] == "gorman" else s for s in config.snapshots())
    monkeypatch.setattr(config, "snapshots", lambda: snaps)
    assert "* **ShareAlike** (AGDT 2.1, UD Perseus, UD PROIEL, UD PTNK, Pedalion, Harrington): " in \
        metadata.licenses_md(None)
    source = (PACKAGES["sphragis.export"] / "metadata.py").read_text(encoding="utf-8")
    assert "all seven sources" not in source and "UD Perseus: CC BY-NC-SA" not in source


def test_no_module_over_500_lines():
    # a module small enough to read in one sitting
    over = {mod: n for mod, path in _python_files().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 500}
    assert not over, f"modules over 500 lines: {over}"


# --------------------------------------------------------------------------------------------
# Comments say why, not history (git keeps it): no issue reference in the code, SQL, yml,
# templates, seeds or docs, and every repository path a comment names exists.

#: Tracked files the issue-reference guard reads (upstream snapshots under tests/fixtures/sources
#: are not the project's text).
PROSE_FILES = ("*.py", "*.sql", "*.yml", "*.yaml", "*.j2", "*.csv", "*.toml", "*.md", "Makefile", ".ci/*")
#: Tracked files whose comments the path guard reads.
COMMENTED_FILES = ("*.py", "*.sql", "*.yml", "*.yaml", "*.j2", "Makefile")
#: A reference to a tracker entry: an issue, pull request or ticket number, or GH-N.
ISSUE_REFERENCE = re.compile(r"(?i:\b(?:issues?|pull requests?|tickets?)[\s-]*#?\d+)|\bPRs? ?#?\d+|\bGH-\d+")
#: A repository path as a comment names it: a top-level folder of the checkout, then the rest.
REPO_PATH = re.compile(r"(?<![\w./<>{}$~-])((?:sphragis|ingest|export|models|sql|tests|docs|scripts|\.ci)/"
                       r"[\w./*-]*[\w/*])")


def _tracked(*patterns: str) -> list[Path]:
    """The files git tracks in the checkout that match ``patterns`` (CI runs on a clean clone)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--", *patterns], cwd=REPO, capture_output=True,
                                check=True).stdout.decode("utf-8")
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"the guards read the files git tracks, and {REPO} is not a git checkout: {exc}")
    return [REPO / p for p in listed.split("\0") if p and not p.startswith("tests/fixtures/sources/")]


def comments_of(path: Path) -> str:
    """The comments of a Python, SQL, Jinja, yml or Makefile file: Python's ``#`` comments and
    docstrings; SQL's and Jinja's ``--``, ``/* */`` and ``{# #}``; yml's ``#`` comments and every
    ``description``; the Makefile's ``#`` comments and ``##`` help texts."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        parts = [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
        parts += [doc for node in ast.walk(ast.parse(text))
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and (doc := ast.get_docstring(node, clean=False))]
        return "\n".join(parts)
    if path.suffix in (".sql", ".j2"):
        return "\n".join(m.group(0) for m in _COMMENT.finditer(text))
    parts = [m.group(0) for m in re.finditer(r"(?:^|\s)#.*$", text, re.M)]
    if path.suffix in (".yml", ".yaml"):
        stack = [yaml.safe_load(text)]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                parts += [str(v) for k, v in node.items() if k == "description" and v]
                stack += node.values()
            elif isinstance(node, list):
                stack += node
    return "\n".join(parts)


def missing_paths(path: Path, root: Path = REPO) -> list[str]:
    """The repository paths the comments of ``path`` name (a glob pattern included) that do not
    exist under ``root``."""
    return sorted({p for p in REPO_PATH.findall(comments_of(path))
                   if not (any(root.glob(p)) if "*" in p else (root / p).exists())})


def test_the_comment_guards_find_an_issue_reference_and_a_missing_path(tmp_path):
    said = "issue"  # the examples are built here, so this file passes its own guard
    for text in (f"-- the rule ({said} 29)", f"# see {said} #14", f"{said.title()}s 28-30 moved it",
                 f"the {said}-17 example", f"(GH-{12})", f"pull request {7}"):
        assert ISSUE_REFERENCE.search(text), text
    assert not ISSUE_REFERENCE.search("sentence #1994 of example-sentences.xml; PronType=Prs 2; the issues read")
    (tmp_path / "sphragis").mkdir()
    (tmp_path / "sphragis" / "here.py").write_text("", encoding="utf-8")
    mod = tmp_path / "mod.py"
    mod.write_text('"""Reads sphragis/here.py and sql/seeds/*.csv."""\n'
                   'x = "sphragis/in_code_not_a_comment.py"  # written by sphragis/gone.py\n', encoding="utf-8")
    assert missing_paths(mod, tmp_path) == ["sphragis/gone.py", "sql/seeds/*.csv"]
    model = tmp_path / "m.sql"
    model.write_text("-- derived by sql/queries/gone.sql\nselect 'sql/x.sql' as s {# models/gone.sql #}\n",
                     encoding="utf-8")
    assert missing_paths(model, tmp_path) == ["models/gone.sql", "sql/queries/gone.sql"]
    yml = tmp_path / "s.yml"
    yml.write_text("# see sphragis/here.py\nmodels:\n  - name: m\n    description: read by export/gone.py\n",
                   encoding="utf-8")
    assert missing_paths(yml, tmp_path) == ["export/gone.py"]


def test_no_issue_reference_in_code_sql_yml_templates_or_docs():
    found = [f"{path.relative_to(REPO)}:{n}: {m.group(0)}" for path in _tracked(*PROSE_FILES)
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for m in ISSUE_REFERENCE.finditer(line)]
    assert not found, ("issue references (say why the code is so; the history is in git): " + "\n".join(found))


def test_every_path_a_comment_names_exists():
    found = {str(path.relative_to(REPO)): missing for path in _tracked(*COMMENTED_FILES)
             if (missing := missing_paths(path))}
    assert not found, f"comments naming repository paths that do not exist: {found}"


# --------------------------------------------------------------------------------------------
# One home for the projects (SPEC §1.1): no SQL model, macro, query or schema file names a project
# outside staging (dbt's one-file-per-source convention), the seeds (data) and the protocol's
# evaluation-fold models (models/marts/evaluation/: seed 001's folds are defined by their projects).

#: Where a project name may be written: staging (one model pair per source), the protocol's
#: evaluation-fold models, and unit tests (their given rows are hand-written example data).
EXEMPT_DIRS = (REPO / "models" / "staging", REPO / "models" / "marts" / "evaluation")
#: SQL the guard reads: every model, macro, named query, SQL test and analysis.
SQL_ROOTS = (REPO / "models", REPO / "sql" / "macros", REPO / "sql" / "queries", REPO / "sql" / "tests",
             REPO / "sql" / "analyses")

_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/|\{#.*?#\}", re.S)
_LITERAL = re.compile(r"'((?:[^']|'')*)'|\"((?:[^\"\\]|\\.)*)\"")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _like_matches(pattern: str, key: str) -> bool:
    """Whether the SQL LIKE ``pattern`` (backslash escapes) matches ``key``."""
    out, i = "", 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out += re.escape(pattern[i + 1])
            i += 2
            continue
        out += ".*" if c == "%" else "." if c == "_" else re.escape(c)
        i += 1
    return re.fullmatch(out, key) is not None


def literal_names_project(value: str, keys: tuple[str, ...]) -> str | None:
    """The project key a string literal names, or None: the key itself, the key followed by a
    non-word character (``'ud_perseus-'``), a staging model of the project (``'stg_ud_proiel__tokens'``)
    or a LIKE pattern with a letter that matches the key (``'ud\\_%'``)."""
    value = value.replace("''", "'").replace("\\\\", "\\")
    for key in keys:
        if value == key or re.match(rf"{re.escape(key)}[^a-z0-9_]", value) or value.startswith(f"stg_{key}__"):
            return key
        if ("%" in value or "_" in value) and re.search("[a-z]", value) and value != key and _like_matches(value, key):
            return key
    return None


def sql_project_literals(text: str, keys: tuple[str, ...]) -> list[str]:
    """``"<literal> (<key>)"`` for every SQL or Jinja string literal of ``text`` (comments removed)
    that names a project (:func:`literal_names_project`)."""
    found = []
    for m in _LITERAL.finditer(_COMMENT.sub(" ", text)):
        value = m.group(1) if m.group(1) is not None else m.group(2)
        if (key := literal_names_project(value, keys)) is not None:
            found.append(f"{value!r} ({key})")
    return found


def _test_values(node) -> list[str]:
    """Every string of a schema file's ``data_tests``/``tests`` entries (arguments, expressions,
    accepted values), recursively."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [v for x in node.values() for v in _test_values(x)]
    if isinstance(node, list):
        return [v for x in node for v in _test_values(x)]
    return []


def yml_project_names(doc, keys: tuple[str, ...]) -> list[str]:
    """Project names written in the data tests of a parsed schema file: an accepted value or a
    word of an expression equal to a key, a column named after a project (``n_agdt``), or a string
    literal naming one inside an expression (:func:`sql_project_literals`)."""
    tests: list = []

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("data_tests", "tests"):
                    tests.append(v)
                else:
                    walk(v)
        elif isinstance(node, list):
            for x in node:
                walk(x)

    walk(doc)
    found = []
    for value in _test_values(tests):
        found += sql_project_literals(value, keys)
        bare = _LITERAL.sub(" ", value)
        for word in _IDENTIFIER.findall(bare):
            if any(word == k or word.endswith(f"_{k}") for k in keys):
                found.append(f"{word} (word)")
    return found


def _exempt(path: Path) -> bool:
    return any(path.is_relative_to(d) for d in EXEMPT_DIRS) or path.name == "_unit_tests.yml"


def test_the_guard_finds_each_kind_of_project_literal():
    keys = ("agdt", "ud_perseus", "ud_proiel")
    sql = """select 1 from t where project = 'agdt' -- 'ud_perseus' in a comment is prose
        and p like 'ud\\_%' escape '\\' and fold = 'ud_perseus-' || f {# 'agdt' #}
        union all select * from {{ ref('stg_ud_proiel__tokens') }} where x = 'ud_perseus_source'"""
    assert sql_project_literals(sql, keys) == [
        "'agdt' (agdt)", "'ud\\\\_%' (ud_perseus)", "'ud_perseus-' (ud_perseus)", "'stg_ud_proiel__tokens' (ud_proiel)"]
    doc = yaml.safe_load("""
models:
  - name: m
    description: agdt in prose is not a test
    data_tests:
      - expression: {arguments: {expression: "n_tokens = n_agdt + n_ud_perseus"}}
      - expression: {arguments: {expression: "project <> 'agdt' or reason = 'ud_perseus_source'"}}
    columns:
      - name: project
        data_tests: [{accepted_values: {arguments: {values: [agdt, gorman]}}}]
""")
    assert yml_project_names(doc, keys) == ["n_agdt (word)", "n_ud_perseus (word)", "'agdt' (agdt)", "agdt (word)"]


def test_no_project_name_outside_staging_seeds_and_the_evaluation_folds():
    keys = tuple(p["project"] for p in config.projects())
    found = {}
    for root in SQL_ROOTS:
        for path in sorted(root.rglob("*.sql")):
            if not _exempt(path) and (hits := sql_project_literals(path.read_text(encoding="utf-8"), keys)):
                found[str(path.relative_to(REPO))] = hits
    for path in sorted((REPO / "models").rglob("*.yml")):
        if not _exempt(path) and (hits := yml_project_names(yaml.safe_load(path.read_text(encoding="utf-8")), keys)):
            found[str(path.relative_to(REPO))] = hits
    assert not found, ("project names written outside staging, the seeds and models/marts/evaluation/ (select "
                       f"projects by a column of the registry sql/seeds/projects.csv instead): {found}")
