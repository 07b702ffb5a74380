"""The audit's inputs (:mod:`sphragis.audit`, SPEC §11): the export's Parquet files read into an
in-memory DuckDB, every distinct unit's markup and character n-gram counts (counted once per unit,
the named queries ``sql/queries/audit_*.sql``), and per (configuration, split) the rows × units
incidence and labels that turn unit counts into row counts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from .benchmark import CONFIGS, SPLITS
from .config import DATASET_VARIANTS
from .queries import query

CHAR_NGRAMS = (1, 4)
#: The payload columns (``audit_payloads``) that identify a unit rather than describe it: the
#: features are computed from the others, which must be input columns (:func:`check_inputs`).
UNIT_KEYS = ("cfg", "split", "r", "dedup_key")


class AuditError(RuntimeError):
    """The export is missing, incomplete or malformed, or scikit-learn is not installed."""


def _sklearn():
    """Import scikit-learn lazily (optional extra)."""
    import importlib

    try:
        for name in ("scipy.sparse", "sklearn"):
            importlib.import_module(name)
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise AuditError("the leakage audit needs scikit-learn: pip install 'sphragis-warehouse[audit]' "
                         f"(or the dev extra) ({exc})") from exc



def config_files(out: Path, configs: tuple[str, ...] = CONFIGS) -> dict[str, dict[str, Path]]:
    """The Parquet file of every (configuration, split) in the export directory ``out``.

    Raises:
        AuditError: a configuration or split has no ``data/<config>/<split>-*.parquet`` file
            (the message names the missing path), or it has more than one shard.
    """
    files: dict[str, dict[str, Path]] = {}
    for cfg in configs:
        files[cfg] = {}
        for split in SPLITS:
            found = sorted((out / "data" / cfg).glob(f"{split}-*.parquet"))
            if len(found) != 1:
                raise AuditError(f"{out / 'data' / cfg / (split + '-00000-of-00001.parquet')}: "
                                 f"expected exactly one file, found {len(found)}; run `sphragis export` first")
            files[cfg][split] = found[0]
    return files


def declared_inputs(out: Path, configs: tuple[str, ...] = CONFIGS) -> dict[str, list[str]]:
    """Per configuration, the columns a model may read, as the export declares them
    (``input_columns`` of ``metadata/dataset_variants.json``, SPEC §11).

    Raises:
        AuditError: the file is missing or declares no ``input_columns`` for a configuration.
    """
    import json

    path = out / DATASET_VARIANTS
    try:
        variants = json.loads(path.read_text(encoding="utf-8"))
        return {cfg: list(variants[cfg]["input_columns"]) for cfg in configs}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise AuditError(f"{path}: no input_columns declared for every audited configuration ({exc!r}); "
                         "run `sphragis export` first") from exc


def check_inputs(read: list[str], inputs: dict[str, list[str]]) -> None:
    """That the audit's features read only input columns: ``read``, the unit columns the payload
    query returns besides :data:`UNIT_KEYS` (what the markup and text features are computed
    from), must be declared inputs of every audited configuration.

    Raises:
        AuditError: naming the column and the configuration.
    """
    for cfg, declared in inputs.items():
        extra = [c for c in read if c not in declared]
        if extra:
            raise AuditError(f"the audit's features would read {', '.join(extra)}, which "
                             f"{DATASET_VARIANTS} does not declare an input of {cfg} (input_columns: "
                             f"{', '.join(declared)})")


@dataclass
class Units:
    """Every distinct unit (by ``dedup_key``) of the audited configurations.

    Attributes:
        n: number of units; unit ``k`` is row ``k`` of the matrices.
        markup: scipy CSR (n × len(markup_vocab)) of markup feature counts.
        markup_vocab: feature names, sorted (column order of ``markup``).
        text: scipy CSR (n × len(text_vocab)) of character n-gram counts of the unit text.
        text_vocab: the n-grams (column order of ``text``).
    """

    n: int
    markup: Any
    markup_vocab: list[str]
    text: Any
    text_vocab: list[str] = field(repr=False)


@dataclass
class SplitRows:
    """One (configuration, split): rows × units incidence, the two labels per row (author, project)
    and the row's id, genre and work_id (metadata: the lookup baselines and the confounds)."""

    incidence: Any
    authors: np.ndarray
    projects: np.ndarray
    ids: np.ndarray
    genres: np.ndarray = field(default_factory=lambda: np.array([], dtype=object))
    work_ids: np.ndarray = field(default_factory=lambda: np.array([], dtype=object))


def load(files: dict[str, dict[str, Path]], declared: dict[str, list[str]] | None = None
         ) -> tuple[duckdb.DuckDBPyConnection, Units]:
    """Read every file into an in-memory DuckDB and count the unit features once.

    Args:
        files: :func:`config_files`.
        declared: :func:`declared_inputs` of the export; the payload columns the features are
            computed from are checked against them (:func:`check_inputs`). None: not checked (a
            synthetic export without metadata).

    Returns:
        (connection holding ``audit_rows`` and ``audit_units``, :class:`Units`).

    Raises:
        AuditError: a file lacks a required column, rows disagree on a unit's length, or the
            features would read a column that is not a declared input.
    """
    import scipy.sparse as sp

    import pyarrow as pa

    con = duckdb.connect()
    paths = [str(path) for splits in files.values() for path in splits.values()]
    inputs = pa.table({
        "path": paths,
        "cfg": [cfg for cfg, splits in files.items() for _ in splits],
        "split": [split for splits in files.values() for split in splits],
        "file_idx": list(range(len(paths))),
    })
    con.register("audit_inputs", inputs)
    try:
        _temp_table(con, "audit_files", query("audit_files"), {"paths": paths})
        # the payloads (text, CoNLL-U: most of the bytes) only from the files that first hold a unit
        needed = [paths[i] for (i,) in con.execute(query("audit_payload_files")).fetchall()]
        _temp_table(con, "audit_payloads", query("audit_payloads"), {"paths": needed})
    except duckdb.Error as exc:
        raise AuditError(f"cannot read the export's Parquet files: {exc}") from exc
    con.unregister("audit_inputs")
    if declared is not None:
        check_inputs([c for c in con.table("audit_payloads").columns if c not in UNIT_KEYS], declared)
    bad = con.execute(query("audit_ragged_rows")).fetchone()
    if bad:
        raise AuditError(f"{files[bad[0]][bad[1]]}: row {bad[2]} has lists of different lengths "
                         "(dedup_key, text, conllu and treebank_source need one entry per unit)")
    _temp_table(con, "audit_units", query("audit_units"))
    _temp_table(con, "audit_rows", query("audit_rows"))
    _temp_table(con, "audit_tokens", query("audit_tokens"))
    con.execute("drop table audit_payloads")
    con.execute("drop table audit_files")
    n = con.table("audit_units").count("*").fetchall()[0][0]

    markup, vocab = _feature_counts(con, query("audit_markup"), n)
    texts = [t for (t,) in con.execute(query("audit_texts")).fetchall()]
    text, text_vocab = char_wb_counts(texts, con)
    return con, Units(n=n, markup=markup, markup_vocab=vocab, text=text, text_vocab=text_vocab)


def _feature_counts(con: duckdb.DuckDBPyConnection, sql: str, n_rows: int,
                    params: dict | None = None) -> tuple[Any, list[str]]:
    """The counts of the named query ``sql`` (columns row_idx, feature, n) as a CSR float64 matrix
    ``n_rows`` × distinct features, columns in sorted feature order, with the features in that
    order (the named queries ``audit_vocabulary`` and ``audit_feature_triplets``)."""
    import scipy.sparse as sp

    _temp_table(con, "audit_features", sql, params)
    vocab = [f for (f,) in con.execute(query("audit_vocabulary")).fetchall()]
    trip = con.execute(query("audit_feature_triplets")).fetchnumpy()
    con.execute("drop table audit_features")
    counts = sp.csr_matrix((trip["n"].astype(np.float64), (trip["row_idx"], trip["j"])), shape=(n_rows, len(vocab)))
    counts.sort_indices()
    return counts, vocab


def char_wb_counts(texts: list[str], con: duckdb.DuckDBPyConnection | None = None) -> tuple[Any, list[str]]:
    """The ``CountVectorizer(analyzer="char_wb", ngram_range=CHAR_NGRAMS, lowercase=False)`` counts
    of ``texts``, counted once per distinct word instead of once per occurrence, in SQL.

    ``char_wb`` n-grams never cross a word boundary (each whitespace-separated word is padded with
    one space and cut alone), so a text's counts are the sum of its words' counts: texts × words
    (occurrences) @ words × n-grams. The words are cut by Python's ``str.split`` (as
    ``CountVectorizer`` cuts them); their n-grams are counted by the named query
    ``audit_word_ngrams`` on ``con`` (a new in-memory DuckDB when None), on every core: about
    a third of the CPU of ``CountVectorizer`` on the 114,724 distinct words of the pinned sources,
    and the same columns (the sorted n-grams) and values (sums of integers, exact in float64) as
    counting every text with it (``tests/test_audit.py``).

    Returns:
        (CSR float64 matrix len(texts) × len(vocabulary), the n-grams in column order).
    """
    import scipy.sparse as sp

    import pyarrow as pa

    word_idx: dict[str, int] = {}
    rows, cols = [], []
    for i, t in enumerate(texts):
        for w in t.split():  # the words char_wb cuts (it splits on whitespace the same way)
            rows.append(i)
            cols.append(word_idx.setdefault(w, len(word_idx)))
    occurrences = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(texts), len(word_idx)))
    con = con or duckdb.connect()
    con.register("audit_words", pa.table({"word_idx": pa.array(range(len(word_idx)), pa.int64()),
                                          "word": pa.array(list(word_idx), pa.string())}))
    try:
        per_word, vocab = _feature_counts(con, query("audit_word_ngrams"), len(word_idx),
                                          {"min_n": CHAR_NGRAMS[0], "max_n": CHAR_NGRAMS[1]})
    finally:
        con.unregister("audit_words")
    counts = (occurrences @ per_word).tocsr()
    counts.sort_indices()
    return counts, vocab


def _temp_table(con: duckdb.DuckDBPyConnection, name: str, sql: str, params: dict | None = None) -> None:
    """Create the temporary table ``name`` holding the result of ``sql`` (a named query)."""
    con.execute(f"create temp table {name} as " + sql, params)


def split_rows(con: duckdb.DuckDBPyConnection, units: Units, cfg: str, split: str) -> SplitRows:
    """Incidence (rows × units, 1 where the row holds the unit), author / project labels, ids,
    genres and work ids.

    The project of a row is the most frequent ``treebank_source`` of its units (ties: the
    earliest unit); for ``_1`` rows simply the chosen parse's.
    """
    import scipy.sparse as sp

    params = {"cfg": cfg, "split": split}
    labels = con.execute(query("audit_split_labels"), params).fetchall()  # one per row, in row order
    inc = con.execute(query("audit_split_incidence"), params).fetchnumpy()
    incidence = sp.csr_matrix((np.ones(len(inc["r"])), (inc["r"], inc["unit_idx"])), shape=(len(labels), units.n))
    columns = list(zip(*labels)) if labels else [()] * 6
    return SplitRows(incidence=incidence, **{name: np.array(columns[k], dtype=object) for k, name in
                                             ((1, "authors"), (2, "projects"), (3, "ids"), (4, "genres"), (5, "work_ids"))})
