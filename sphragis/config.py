"""Paths and settings: the one home of every folder and file the package reads or writes.

Two kinds of paths (README "Configuration"):

* **Package data**, read with :mod:`importlib.resources`: the SQL models, seeds, macros, analyses,
  DDL, report templates and the pin list ship inside the package, so an installed wheel works from
  any directory. In the repository they keep the design card's top-level layout (``models/``,
  ``sql/``) and are mapped to the sub-packages ``sphragis.models`` and ``sphragis.sql`` by
  ``[tool.setuptools]`` in ``pyproject.toml`` (as ``ingest/`` and ``export/`` are).
* **Working paths** (:func:`settings`): the mirror, unpacked sources, warehouse and export come
  from the ``SPHRAGIS_*`` environment variables; relative values and the defaults are resolved
  against the **current working directory** (so ``make`` targets, run from the checkout, use the
  checkout's ``data/``, ``warehouse.duckdb`` and ``dist/``).
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path

from .state import note_read

#: The installed ``sphragis`` package folder (the checkout's ``sphragis/`` in an editable install).
PACKAGE_DIR = Path(str(files("sphragis")))
#: Parent of :data:`PACKAGE_DIR`: the checkout root when running from a checkout. Only the
#: checkout-only tooling (``sphragis.bench``) uses it; an installed package must not.
REPO_ROOT = PACKAGE_DIR.parent


def _data_package(name: str, checkout_folder: str) -> Path:
    """Folder of the package-data sub-package ``sphragis.<name>`` (``<checkout_folder>/`` in git).

    An editable install made before the sub-package existed cannot import it; in a checkout the
    mapped folder is the same one, so it is used directly. Anywhere else a missing sub-package is a
    broken installation.

    Raises:
        ModuleNotFoundError: ``sphragis.<name>`` is not installed and this is not a checkout.
    """
    try:
        return Path(str(files(f"sphragis.{name}")))
    except ModuleNotFoundError:
        folder = REPO_ROOT / checkout_folder
        if (REPO_ROOT / "pyproject.toml").is_file() and folder.is_dir():
            return folder
        raise


#: SQL models (``models/`` in the repository): ``staging/``, ``intermediate/``, ``marts/``.
MODELS_DIR = _data_package("models", "models")
#: ``sql/`` in the repository: ``ddl/``, ``macros/``, ``seeds/``, ``analyses/``.
SQL_DIR = _data_package("sql", "sql")
SEEDS_DIR = SQL_DIR / "seeds"
MACROS_DIR = SQL_DIR / "macros"
ANALYSES_DIR = SQL_DIR / "analyses"
DDL_DIR = SQL_DIR / "ddl"
#: Jinja2 templates of the rendered reports (``sphragis/templates/``).
TEMPLATES_DIR = PACKAGE_DIR / "templates"
#: The checked-in pin list of upstream snapshots (SPEC §1).
SOURCES_FILE = PACKAGE_DIR / "sources.json"

#: Seed for every stable shuffle (SPEC §8, seed 000 "Splits").
SPLIT_SEED = 776

#: Deepest head chain a sentence may have (head-0 token at depth 0; SPEC §13): the ingest
#: rejects a deeper sentence (``ingest/parsers.py``), and ``int_tree_checks`` walks the published
#: trees to this depth (build variable ``max_tree_depth``); both read this one value.
MAX_TREE_DEPTH = 1000

#: Largest treebank file an ingest reads (bytes; SPEC §13: bounded input). A file is parsed whole in
#: one worker's memory; the largest pinned file is 3.8 MB, so this is a bound on accidents (a
#: link to a disk image, a runaway generator), named in the error, not a limit on any treebank.
MAX_SOURCE_BYTES = 256 << 20

#: Build variables of the training treebank models (int_training_candidates,
#: mart_training_treebank_exclusions, mart_training_treebank; seed 001 "Leakage
#: controls"): the defaults the build uses and `sphragis export-treebank` starts from.
#: treebank_projects: the training projects written (:func:`training_projects`); treebank_folds: the
#: protected UD folds (:func:`evaluation_folds`, folds.known_folds names); the three exclusion
#: rules; treebank_work_folds: folds whose works are excluded whole (the seed's ``exclude_works``;
#: seed 001: PROIEL is held out entirely, so Gorman's Herodotus goes; UD Perseus dev/test are
#: protected sentence by sentence only); dedup across projects (SPEC §7 key and priority);
#: authorship curation (SPEC §6, off: a parser does not need it); percentage of each project's
#: sentences drawn into `dev` by the stable hash (SPEC §8 style; 0 = no split). The three lists
#: are read from the seeds when this module is imported (:func:`_seed_defaults`).
TRAINING_TREEBANK_VARS: dict[str, object] = {
    "treebank_projects": [],
    "treebank_folds": [],
    "treebank_exclude_perseus_sources": True,
    "treebank_exclude_fold_text": True,
    "treebank_exclude_fold_works": True,
    "treebank_work_folds": [],
    "treebank_dedup": True,
    "treebank_curation": False,
    "treebank_dev_percent": 0,
}

#: Default of ``SPHRAGIS_MIRROR``: the shared mirror beside the checkout, used when it exists.
DEFAULT_MIRROR = "../shared/sources"

#: Works-registry profile built when none is chosen: ``seed000`` takes the curation decisions that
#: seed 000's published "Sentences per author label" table implies (``sql/seeds/works_registry.csv``
#: as written). Other profiles are the named override sets of ``sql/seeds/works_registry_profiles.csv``
#: (e.g. ``scholarly``); choose one with ``SPHRAGIS_REGISTRY_PROFILE`` or ``sphragis build
#: --registry-profile`` (build variable ``registry_profile``).
DEFAULT_REGISTRY_PROFILE = "seed000"

#: Build variables of passage overlap (SPEC §7.1; int_overlap_texts,
#: int_record_overlap_pairs, int_overlap_pairs, mart_split_assignments). The measure: distinct word
#: n-grams (``overlap_ngram_words`` words) of the published text with diacritics removed and the
#: edition variants of ``sql/seeds/edition_variants.csv`` applied; a pair overlaps when both rows
#: have at least ``overlap_min_ngrams`` of them and the smaller set is at least
#: ``overlap_min_containment`` inside the other (or the texts differ only by edition variants).
#: Defaults chosen on samples of each class (README "Passage overlap"). ``overlap_conflict_rule``:
#: both rows of an author-conflict pair (edition or quotation of two author labels) are excluded
#: (SPEC §7's rule; on the main track only under the ``grouped`` profile, so the default keeps
#: seed 000's split); ``overlap_drop_train_twins``: on the source- and work-held-out tracks a
#: training row overlapping an evaluation row of its author is excluded. The second measure
#: (int_overlap_char_pairs), near-twins the word n-grams miss: distinct character n-grams
#: (``overlap_char_ngram`` letters) of the text with accents and spaces removed (the dedup_key),
#: both rows with at least ``overlap_char_min_ngrams`` of them, the smaller set at least
#: ``overlap_char_min_containment`` inside the other; same classes and rules.
OVERLAP_VARS: dict[str, object] = {
    "overlap_ngram_words": 3,
    "overlap_min_ngrams": 5,
    "overlap_min_containment": 0.8,
    "overlap_char_ngram": 5,
    "overlap_char_min_ngrams": 20,
    "overlap_char_min_containment": 0.8,
    "overlap_conflict_rule": True,
    "overlap_drop_train_twins": True,
}

#: Share of a file's distinct sentence dedup keys (SPEC §7) that files of its project ranked above it
#: must hold for the file to be a duplicate of theirs (int_duplicate_files; build variable
#: ``duplicate_file_min_share``): on the real sources UNESP Trees' duplicates hold 0.96-1.0 of their
#: keys, while distinct files share at most 0.77 (Pedalion's chilia-sentences.xml within its
#: example-sentences.xml; PapyGreek's letters share formulae, at most 0.75).
DUPLICATE_FILE_MIN_SHARE = 0.8

#: Split profiles of the main track (build variable ``split_profile``, ``sphragis build
#: --split-profile``, ``SPHRAGIS_SPLIT_PROFILE``): ``seed000`` keeps seed 000's split exactly and
#: reports what straddles; ``grouped`` assigns each overlap group to one split (SPEC §7.1).
SPLIT_PROFILES = ("seed000", "grouped")
DEFAULT_SPLIT_PROFILE = "seed000"

#: Every build variable (the models' ``var()``) with its default: their one home. The runner
#: renders the models with these (``runner.DEFAULT_VARS`` is this dict); ``sphragis
#: export-treebank`` starts from the ``treebank_*`` ones (:data:`TRAINING_TREEBANK_VARS`);
#: the linter (``make lint``) and dbt (``dbt_project.yml``, checked by tests/test_dbt.py) render
#: ``var()`` with the same values. ``min_cell_tokens``: tokens an (author, project)
#: cell needs to enter mart_rates (SPEC §11); ``min_author_rows``: the split block, the largest
#: chunk size (seed 000 "Configurations"); ``registry_profile``: the works-registry profile built.
BUILD_VARS: dict[str, object] = {
    "split_seed": SPLIT_SEED,
    "max_tree_depth": MAX_TREE_DEPTH,
    "min_cell_tokens": 1000,
    "min_author_rows": 50,
    "registry_profile": DEFAULT_REGISTRY_PROFILE,
    "default_registry_profile": DEFAULT_REGISTRY_PROFILE,
    **OVERLAP_VARS,
    "split_profile": DEFAULT_SPLIT_PROFILE,
    "duplicate_file_min_share": DUPLICATE_FILE_MIN_SHARE,
    **TRAINING_TREEBANK_VARS,
}

#: The leakage audit's document inside an export folder (SPEC §11): written by ``sphragis audit``,
#: read by ``sphragis report``.
LEAKAGE_REPORT = Path("metadata") / "leakage_report.json"
#: Evaluation rows with a near-twin in train per configuration and split (SPEC §7.1):
#: written by ``sphragis export``, read by ``sphragis audit`` (text baseline without them).
OVERLAP_TWINS = Path("metadata") / "overlap_twins.json"
#: Every configuration's authors, rows, chunks and declared columns (SPEC §9, §11): written by
#: ``sphragis export``, read by the card, ``sphragis audit`` and ``sphragis score``.
DATASET_VARIANTS = Path("metadata") / "dataset_variants.json"


def _path(env: str, default: str) -> Path:
    """``$env`` (or ``default``) as an absolute path; relative paths are taken from the cwd."""
    return Path(os.path.abspath(Path(os.environ.get(env) or default).expanduser()))


def reports_dir() -> Path:
    """Where ``sphragis report`` writes by default: ``reports/`` in the current directory."""
    return Path(os.path.abspath("reports"))


@dataclass(frozen=True)
class Settings:
    """Resolved working paths (absolute).

    Attributes:
        mirror: ``SPHRAGIS_MIRROR``, folder holding the pinned ``*.tar.xz`` archives (default
            ``../shared/sources``, used only if it exists; ``none`` = fetch from upstream git; the
            rule is :func:`sphragis.fetch.resolve_mirror`).
        data: ``SPHRAGIS_DATA``, where snapshots are unpacked (default ``data/sources``).
        warehouse: ``SPHRAGIS_WAREHOUSE``, the DuckDB file (default ``warehouse.duckdb``).
        out: ``SPHRAGIS_OUT``, the export directory (default ``dist/sphragis``).
        registry_profile: ``SPHRAGIS_REGISTRY_PROFILE``, the works-registry profile a build uses
            (default :data:`DEFAULT_REGISTRY_PROFILE`).
        split_profile: ``SPHRAGIS_SPLIT_PROFILE``, the main track's split profile (one of
            :data:`SPLIT_PROFILES`, default :data:`DEFAULT_SPLIT_PROFILE`).
    """

    mirror: Path
    data: Path
    warehouse: Path
    out: Path
    registry_profile: str = DEFAULT_REGISTRY_PROFILE
    split_profile: str = DEFAULT_SPLIT_PROFILE

    def inputs(self) -> tuple[Path, ...]:
        """The paths no command's output may be, hold or lie inside (SPEC §13: it never deletes or
        overwrites what it did not write): the mirror, the unpacked sources and the warehouse
        (:func:`sphragis.files.claim_output_dir`, :func:`sphragis.files.check_output_file`)."""
        return tuple(p for p in (self.mirror, self.data, self.warehouse) if p is not None)


def settings() -> Settings:
    """Read the ``SPHRAGIS_*`` environment variables (see :class:`Settings`), relative to the cwd."""
    return Settings(
        mirror=_path("SPHRAGIS_MIRROR", DEFAULT_MIRROR),
        data=_path("SPHRAGIS_DATA", "data/sources"),
        warehouse=_path("SPHRAGIS_WAREHOUSE", "warehouse.duckdb"),
        out=_path("SPHRAGIS_OUT", "dist/sphragis"),
        registry_profile=os.environ.get("SPHRAGIS_REGISTRY_PROFILE") or DEFAULT_REGISTRY_PROFILE,
        split_profile=os.environ.get("SPHRAGIS_SPLIT_PROFILE") or DEFAULT_SPLIT_PROFILE,
    )


@cache
def snapshots() -> tuple[dict, ...]:
    """The checked-in pin list (``sphragis/sources.json``), one dict per snapshot (SPEC §1), each
    with its project's ``format`` and ``in_benchmark`` from the project registry (:func:`projects`:
    the parser ingest runs on its files; the benchmark's snapshots are numbered first).

    Raises:
        ValueError: a pin names a project the registry does not hold (names both files).
    """
    note_read(SOURCES_FILE)  # an input of the steps that read it (sphragis.state)
    registry = {p["project"]: p for p in projects()}
    pins = json.loads(SOURCES_FILE.read_text(encoding="utf-8"))["snapshots"]
    for pin in pins:
        if pin["project"] not in registry:
            raise ValueError(f"{SOURCES_FILE}: snapshot {pin['name']!r} names project {pin['project']!r}, which "
                             f"{SEEDS_DIR / 'projects.csv'} does not register")
    return tuple({**pin, **{k: registry[pin["project"]][k] for k in ("format", "in_benchmark")}} for pin in pins)


def read_seed(name: str, columns: tuple[str, ...], seeds_dir: Path = SEEDS_DIR) -> list[dict[str, str]]:
    """Rows of the checked-in seed ``<seeds_dir>/<name>.csv`` (the runner loads the same file as
    the table ``name``) as dicts of strings, in file order.

    Raises:
        ValueError: the header is not exactly ``columns``, or a row has another number of fields
            (the message names the file and line).
        OSError: the file cannot be read.
    """
    path = seeds_dir / f"{name}.csv"
    note_read(path)  # an input of the steps that read it (sphragis.state)
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = tuple(next(reader, ()))
        if header != columns:
            raise ValueError(f"{path}:1: expected the header {','.join(columns)}, found {','.join(header)}")
        rows = []
        for row in reader:
            if len(row) != len(columns):
                raise ValueError(f"{path}:{reader.line_num}: expected {len(columns)} fields, found {len(row)}")
            rows.append(dict(zip(columns, row)))
    return rows


def seed_values(name: str, column: str, seeds_dir: Path = SEEDS_DIR) -> tuple[str, ...]:
    """The distinct values of ``column`` of the checked-in seed ``<seeds_dir>/<name>.csv``, in file
    order: the one way Python reads a list that a seed holds (e.g. the published inventories of
    ``export/conllu_units.py``), so the list is not written a second time in code.

    Raises:
        ValueError: the seed has no column ``column`` (naming the file and its header).
        OSError: the file cannot be read.
    """
    path = seeds_dir / f"{name}.csv"
    note_read(path)  # an input of the steps that read it (sphragis.state)
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        if column not in (reader.fieldnames or ()):
            raise ValueError(f"{path}:1: no column {column!r} in the header {','.join(reader.fieldnames or ())}")
        return tuple(dict.fromkeys(row[column] for row in reader))


#: The columns of the project registry ``sql/seeds/projects.csv`` (SPEC §1.1), in file order; each
#: is described in ``models/_seeds.yml``.
PROJECT_COLUMNS = ("project", "priority", "treebank_source", "format", "syntax_scheme", "tag_source",
                   "published_layer", "document_key_rule", "passage_rule", "urn_rule", "trismegistos_rule",
                   "converted_from",
                   "writes_crasis_whole", "in_benchmark", "in_training_treebank", "file_metadata", "duplicate_files",
                   "authorship_rule", "attribution")


@cache
def projects() -> tuple[dict[str, str], ...]:
    """The project registry (SPEC §1.1), highest SPEC §7 source priority first: the rows of the seed
    ``sql/seeds/projects.csv``, the one place where the code learns what a project is (the models
    ``ref()`` it and render ``var('projects')`` from this function). Dicts of strings with the keys of
    :data:`PROJECT_COLUMNS`: ``project`` (key), ``priority``, ``treebank_source`` (SPEC §1 display
    name), ``format`` (the parser and staging dialect: ``agdt_xml``, ``papygreek_xml``, ``conllu``),
    ``syntax_scheme`` (``UD`` or ``AGDT``), ``tag_source`` (SPEC §3: ``postag``, ``xpos``,
    ``upos_feats``), ``published_layer`` (of a two-layer format, the layer published), the named
    rules ``document_key_rule``, ``passage_rule``, ``urn_rule`` and ``trismegistos_rule`` (each
    implemented once, in ``sql/macros/registry.sql``), ``converted_from`` (the project whose trees this one's UD trees
    were converted from), the flags ``writes_crasis_whole``, ``in_benchmark`` (the Sphragis
    benchmark draws from it) and ``in_training_treebank`` (seed 001's training treebank draws from
    it) as ``true``/``false``, ``file_metadata`` (the shape of the snapshot's metadata file, or
    ``none``), ``duplicate_files`` (whether a file duplicating another of the project is
    ``excluded`` or ``kept``), ``authorship_rule`` and ``attribution`` (the credit line of
    LICENSES.md). Every value is described in ``models/_seeds.yml``.

    Raises:
        ValueError: a malformed seed (file and line named) or a non-integer priority.
    """
    return tuple(_seed_in_order("projects", PROJECT_COLUMNS, "priority"))


@cache
def layer_attributes() -> tuple[dict[str, str], ...]:
    """The annotated layers of the multi-layer formats, from the seed ``sql/seeds/layer_attributes.csv``
    (the one home of those attribute names: the dialect parsers check them, the staging macros
    read them as ``var('layer_attributes')``): dicts with ``format``, ``layer``, ``field`` (form,
    lemma, postag, relation, head) and ``attribute`` (the word attribute that holds it), in file order.

    Raises:
        ValueError: a malformed seed (file and line named).
    """
    return tuple(read_seed("layer_attributes", ("format", "layer", "field", "attribute")))


def format_layers(fmt: str) -> dict[str, dict[str, str]]:
    """Layer → {field: attribute} of the format ``fmt`` (:func:`layer_attributes`), in seed order;
    empty for a one-layer format."""
    out: dict[str, dict[str, str]] = {}
    for a in layer_attributes():
        if a["format"] == fmt:
            out.setdefault(a["layer"], {})[a["field"]] = a["attribute"]
    return out


def registry_projects(**conditions: str) -> tuple[str, ...]:
    """Keys of the registered projects (:func:`projects`, priority order) whose columns equal
    ``conditions`` (e.g. ``registry_projects(in_benchmark="true")``): the one way Python selects
    projects by a registry property, never by name.

    Raises:
        KeyError: a condition names no registry column.
    """
    for column in conditions:
        if column not in PROJECT_COLUMNS:
            raise KeyError(f"the project registry has no column {column!r} (columns: {', '.join(PROJECT_COLUMNS)})")
    return tuple(p["project"] for p in projects() if all(p[k] == v for k, v in conditions.items()))


def project_row(project: str) -> dict[str, str]:
    """The registry row (:func:`projects`) of ``project``.

    Raises:
        KeyError: ``project`` is not registered (the message names the registry file).
    """
    for p in projects():
        if p["project"] == project:
            return p
    raise KeyError(f"project {project!r} is not registered in {SEEDS_DIR / 'projects.csv'}")


def _seed_in_order(name: str, columns: tuple[str, ...], order: str) -> list[dict[str, str]]:
    """Rows of the seed ``name`` (:func:`read_seed`) sorted by the integer column ``order``.

    Raises:
        ValueError: a malformed seed, or an ``order`` that is not an integer (file and line named).
    """
    rows = read_seed(name, columns)
    for line, row in enumerate(rows, start=2):
        if not row[order].isdigit():
            raise ValueError(f"{SEEDS_DIR / (name + '.csv')}:{line}: {order} must be an integer")
    return sorted(rows, key=lambda r: int(r[order]))


@cache
def edition_variants() -> tuple[dict[str, str | None], ...]:
    """The edition variants of the seed ``sql/seeds/edition_variants.csv`` (SPEC §7.1; the one home
    of those rules, which ``int_overlap_texts`` also ``ref()``s), in ``variant_order``: dicts with
    ``pattern`` and ``replacement`` (None for an empty field, as the seed table loads it). The
    macro ``apply_edition_variants`` writes them into the SQL as constants (a pattern read from a
    table is compiled again on every ``regexp_replace`` call).

    Raises:
        ValueError: a malformed seed (file and line named) or a non-integer variant_order.
    """
    rows = _seed_in_order("edition_variants", ("variant_order", "variant", "pattern", "replacement", "example"),
                          "variant_order")
    return tuple({"pattern": r["pattern"], "replacement": r["replacement"] or None} for r in rows)


def training_projects() -> tuple[str, ...]:
    """The projects seed 001's training treebank draws from (``in_training_treebank`` in the registry:
    AGDT and the projects annotated after its guidelines), highest SPEC §7 priority first: the
    training treebank writes them and the overlap manifests check them against the evaluation folds."""
    return registry_projects(in_training_treebank="true")


def benchmark_projects() -> tuple[str, ...]:
    """The projects the Sphragis benchmark draws from (``in_benchmark`` in the registry; seed 000's
    seven), highest SPEC §7 priority first."""
    return registry_projects(in_benchmark="true")


def benchmark_snapshots() -> tuple[dict, ...]:
    """The pinned snapshots (:func:`snapshots`) of the benchmark's projects, in pin-list order: the
    sources the export's metadata, card and licenses describe."""
    chosen = set(benchmark_projects())
    return tuple(s for s in snapshots() if s["project"] in chosen)


@cache
def evaluation_folds() -> tuple[dict[str, object], ...]:
    """The protected evaluation folds of seed 001 (SPEC §12), in file order, from the seed
    ``sql/seeds/evaluation_folds.csv`` (which mart_eval_fold_overlap reads too): dicts with
    ``fold_project``, ``fold``, ``name`` (``<fold_project>-<fold>``, a ``folds.known_folds`` name)
    and ``exclude_works`` (bool: the training treebank leaves out the fold's works whole).

    Raises:
        ValueError: a malformed seed or an ``exclude_works`` other than true/false (file and line).
    """
    rows = read_seed("evaluation_folds", ("fold_project", "fold", "exclude_works"))
    for line, row in enumerate(rows, start=2):
        if row["exclude_works"] not in ("true", "false"):
            raise ValueError(f"{SEEDS_DIR / 'evaluation_folds.csv'}:{line}: exclude_works must be true or false")
    return tuple({"fold_project": r["fold_project"], "fold": r["fold"], "name": f"{r['fold_project']}-{r['fold']}",
                  "exclude_works": r["exclude_works"] == "true"} for r in rows)


def _seed_defaults() -> None:
    """Fill the seed-derived defaults of :data:`TRAINING_TREEBANK_VARS` (and so of
    :data:`BUILD_VARS`, in place: ``runner.DEFAULT_VARS`` is the same dict)."""
    folds = evaluation_folds()
    derived = {"treebank_projects": list(training_projects()),
               "treebank_folds": [f["name"] for f in folds],
               "treebank_work_folds": [f["name"] for f in folds if f["exclude_works"]]}
    TRAINING_TREEBANK_VARS.update(derived)
    BUILD_VARS.update(derived)


_seed_defaults()


def __getattr__(name: str):
    # PROJECT_PRIORITY (SPEC §7 priority order of the project keys, highest first) is read from
    # the registry on first use, so importing this module reads no file.
    if name == "PROJECT_PRIORITY":
        return [p["project"] for p in projects()]
    # RETAINED_PSEUDONYMOUS_AUTHORS (SPEC §6: the Pseudo-* labels the registry may retain) is the
    # seed sql/seeds/retained_pseudonymous_authors.csv, whose data tests check the registry
    if name == "RETAINED_PSEUDONYMOUS_AUTHORS":
        rows = read_seed("retained_pseudonymous_authors", ("author", "work_id", "work_titles", "justification"))
        return frozenset(r["author"] for r in rows)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
