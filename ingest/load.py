"""Raw-layer loader (SPEC §2): parse every treebank file in parallel and fill the raw tables.

Files are discovered from the pin list's ``treebank_files`` globs under each unpacked snapshot,
parsed in a process pool (one task per file), and written to ``raw_files``, ``raw_sentences``,
``raw_tokens`` and ``ingest_rejects`` (DDL in ``sql/ddl/raw.sql``). Each worker turns its file into
Arrow and writes the rows as Parquet (:func:`spill`); once every file is parsed, the loader fills
``raw_sentences`` and ``raw_tokens`` with one ``read_parquet`` insert each, which DuckDB runs in
parallel. Ids are assigned in (snapshot, path) order, so two ingests of the same sources give
identical tables, rows in the same order.

Where the time goes (SPEC §13; real sources, CPU): the XML parse (libxml2 and one
``keys()``/``values()`` call per word) about half, the Arrow conversion and Parquet writing in
the workers about a fifth, DuckDB's insert the rest. DuckDB converts an Arrow MAP column several
times slower than it reads the same column from Parquet (``raw_tokens.attrs``), hence the Parquet
hand-over; the insert is one statement because each further insert statement re-compresses row
groups.
"""

from __future__ import annotations

import gc
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sphragis.config import DDL_DIR
from sphragis.queries import query
from sphragis.workers import exit_with_parent, sigint_held

from .agdt_xml import parse_agdt_xml
from .conllu_files import parse_conllu
from .papygreek_xml import parse_papygreek_xml
from .parsers import ParsedFile, XmlWords
from .preamble import element_columns
from .sources import SourceFile

#: The parser of each registry ``format`` (sql/seeds/projects.csv).
PARSERS: dict[str, Callable[[Path], ParsedFile]] = {"agdt_xml": parse_agdt_xml, "papygreek_xml": parse_papygreek_xml,
                                                    "conllu": parse_conllu}

_MAP = pa.map_(pa.string(), pa.string())
_SENTENCE_SCHEMA = pa.schema([
    ("sentence_uid", pa.int64()), ("file_id", pa.int32()), ("sentence_pos", pa.int32()), ("line", pa.int32()),
    ("upstream_sentence_id", pa.string()), ("document_id", pa.string()), ("subdoc", pa.string()),
    ("attrs", _MAP), ("comments", pa.list_(pa.string())), ("extra_xml", pa.list_(pa.string())),
    ("n_tokens", pa.int32()),
])
_TOKEN_SCHEMA = pa.schema([
    ("sentence_uid", pa.int64()), ("token_pos", pa.int32()), ("line", pa.int32()),
    ("id", pa.string()), ("form", pa.string()), ("lemma", pa.string()), ("upos", pa.string()),
    ("xpos", pa.string()), ("feats", pa.string()), ("head", pa.string()), ("deprel", pa.string()),
    ("deps", pa.string()), ("misc", pa.string()), ("attrs", _MAP),
])


def _map_array(dicts: list[dict | None]) -> pa.Array:
    """MAP(VARCHAR, VARCHAR) array from a list of dicts (None → NULL), built from flat buffers."""
    if not dicts:
        return pa.array([], _MAP)
    if all(d is None for d in dicts):
        return pa.nulls(len(dicts), _MAP)
    offsets, keys, values, valid = [0], [], [], []
    for d in dicts:
        if d is None:
            offsets.append(offsets[-1])
            valid.append(False)
            continue
        keys.extend(d.keys())
        values.extend(d.values())
        offsets.append(len(keys))
        valid.append(True)
    mask = None if all(valid) else pa.array([not v for v in valid])
    return pa.MapArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(keys, pa.string()),
                                   pa.array(values, pa.string()), mask=mask)


def _xml_token_arrays(words: XmlWords) -> dict[str, pa.Array]:
    """Token columns of an XML file as Arrow, straight from the flat attribute lists.

    ``attrs`` is a map array over the flat names and values (offsets from the per-word counts);
    each attribute column (``form`` ← ``@form``, ``xpos`` ← ``@postag``...) is then gathered from
    the flat arrays with vectorized kernels (a word without the attribute gets NULL), instead of a
    Python lookup per word.
    """
    n = len(words.n_attrs)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.asarray(words.n_attrs, dtype=np.int32), out=offsets[1:])
    keys, values = pa.array(words.keys, pa.string()), pa.array(words.values, pa.string())
    attrs = pa.MapArray.from_arrays(pa.array(offsets), keys, values)
    cols: dict[str, pa.Array] = {
        "sentence_pos": pa.array(words.sentence_pos, pa.int32()),
        "token_pos": pa.array(words.token_pos, pa.int32()),
        "line": pa.array(words.line, pa.int32()),
    }
    owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))  # entry → word index
    # attribute names as small integers (a file has a few dozen distinct names), compared in numpy
    names = keys.dictionary_encode()
    codes = names.indices.to_numpy()
    code_of = {name: i for i, name in enumerate(names.dictionary.to_pylist())}
    for col, attr in XmlWords.ATTRIBUTE_COLUMNS:
        hits = np.flatnonzero(codes == code_of.get(attr, -1))
        take = np.full(n, -1, dtype=np.int64)
        take[owner[hits]] = hits
        cols[col] = values.take(pa.array(take, mask=take < 0))
    for col in ("upos", "feats", "deps", "misc"):
        cols[col] = pa.nulls(n, pa.string())
    cols["attrs"] = attrs
    return cols


@dataclass
class ArrowFile:
    """One parsed file as Arrow tables (what a pool worker sends back: cheap to pickle).

    ``sentences`` and ``tokens`` are in memory, or (when the pool was given a spill folder) written
    by the worker to the Parquet files ``sentences_path`` and ``tokens_path`` and None here: DuckDB
    reads Parquet MAP columns several times faster than it converts Arrow maps (SPEC §13; the
    ``attrs`` maps were most of the loader's time), and the workers write them in parallel.
    """

    sha256: str
    bytes: int
    n_sentences_expected: int
    root_attrs: dict | None
    preamble: list[str]
    sentences: pa.Table | None   # _SENTENCE_SCHEMA minus sentence_uid/file_id
    tokens: pa.Table | None      # _TOKEN_SCHEMA with sentence_pos instead of sentence_uid
    rejects: dict
    n_sentences: int = 0
    n_tokens: int = 0
    n_words_expected: int = 0
    sentences_path: str | None = None
    tokens_path: str | None = None


def to_arrow(pf: ParsedFile) -> ArrowFile:
    """Convert a :class:`ParsedFile` to Arrow tables (columns as in ``sql/ddl/raw.sql``)."""
    s = dict(pf.sentences)
    s["attrs"] = _map_array(s["attrs"])
    sent_schema = pa.schema([f for f in _SENTENCE_SCHEMA if f.name not in ("sentence_uid", "file_id")])
    sentences = pa.Table.from_pydict({f.name: s[f.name] for f in sent_schema}, schema=sent_schema)
    tok_schema = pa.schema([pa.field("sentence_pos", pa.int32())] + [f for f in _TOKEN_SCHEMA if f.name != "sentence_uid"])
    if pf.xml_words is not None and not pf.tokens_materialized:
        t = _xml_token_arrays(pf.xml_words)
    else:
        t = dict(pf.tokens)
        t["attrs"] = _map_array(t["attrs"])
    tokens = pa.Table.from_pydict({f.name: t[f.name] for f in tok_schema}, schema=tok_schema)
    return ArrowFile(pf.sha256, pf.bytes, pf.n_sentences_expected, pf.root_attrs, pf.preamble,
                     sentences, tokens, pf.rejects, sentences.num_rows, tokens.num_rows, pf.n_words_expected)


def spill(af: ArrowFile, folder: Path, file_id: int, name: str) -> ArrowFile:
    """Write ``af``'s rows to Parquet in ``folder`` in the form :func:`load` inserts, and drop them
    from memory. Both tables get ``file_id``; ``sentence_uid`` holds the 0-based position of the
    row's sentence among the file's ingested sentences (the loader adds the file's first uid).

    Raises:
        ValueError: a token whose sentence was not ingested (names the file ``name``).
    """
    n = af.sentences.num_rows
    k = pa.array(np.arange(n, dtype=np.int64))
    sentences = (af.sentences.append_column("sentence_uid", k)
                 .append_column("file_id", pa.array(np.full(n, file_id, dtype=np.int32)))
                 .select(_SENTENCE_SCHEMA.names))
    # A token's sentence is the k-th ingested sentence of the file (k from 0).
    # sentence_pos has gaps where sentences were rejected, so it is looked up, not offset.
    tk = pc.index_in(af.tokens.column("sentence_pos"), value_set=af.sentences.column("sentence_pos"))
    if tk.null_count:
        raise ValueError(f"load: {name}: tokens of a sentence that was not ingested")
    tokens = (af.tokens.append_column("sentence_uid", pc.cast(tk, pa.int64()))
              .append_column("file_id", pa.array(np.full(af.tokens.num_rows, file_id, dtype=np.int32)))
              .select(_TOKEN_SCHEMA.names + ["file_id"]))
    af.sentences_path = str(folder / f"{file_id:06d}.sentences.parquet")
    af.tokens_path = str(folder / f"{file_id:06d}.tokens.parquet")
    pq.write_table(sentences, af.sentences_path, **_PARQUET_OPTIONS)
    pq.write_table(tokens, af.tokens_path, use_dictionary=_TOKEN_DICTIONARY_COLUMNS, **_PARQUET_OPTIONS)
    af.sentences = af.tokens = None
    return af


#: Spilled files are read once, right away: no compression, no statistics (on the real tokens a
#: third less CPU to write, DuckDB's read unchanged; disk use below).
_PARQUET_OPTIONS = {"compression": "none", "write_statistics": False}
#: Token columns written with a dictionary: those with few distinct values (attribute names, tags,
#: relations, ids and heads). Forms, lemmas and attribute values are written plain: hashing them
#: for a dictionary cost more than it saved (real tokens: a third less CPU to write, DuckDB's
#: insert unchanged; about twice the disk of the transient files).
_TOKEN_DICTIONARY_COLUMNS = ["attrs.key_value.key", "id", "upos", "xpos", "head", "deprel"]


def _parse(task: tuple[str, str, int, str | None]) -> ArrowFile:
    """Pool task: parse one file and convert it to Arrow (and :func:`spill` it, given a folder).

    The cyclic garbage collector is paused meanwhile: a parse allocates millions of small
    acyclic containers (attribute tuples and lists), and the collector's repeated scans of them
    cost about a quarter of the parse time (profiled, SPEC §13); it is re-enabled afterwards.
    """
    fmt, abspath, file_id, folder = task
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        af = to_arrow(PARSERS[fmt](Path(abspath)))
        return spill(af, Path(folder), file_id, abspath) if folder else af
    finally:
        if was_enabled:
            gc.enable()


def iter_parsed(files: list[SourceFile], *, workers: int | None = None, progress=None,
                spill_to: Path | None = None) -> Iterator[ArrowFile]:
    """Parse ``files`` in a process pool, yielding each result in the order of ``files``.

    Results stream out as soon as the file and all files before it are parsed, so a consumer
    (:func:`load`) records each file while the pool is still parsing (SPEC §13). Files are
    submitted largest first (bytes), so that the last tasks are small and the workers finish
    together. Workers exit when the parent dies.

    Args:
        files: from :func:`sphragis.ingest.sources.discover`.
        workers: pool size (default: ``os.cpu_count()``); 1 parses in-process.
        progress: optional callable invoked once per finished file (for progress bars).
        spill_to: folder where each worker writes its file's rows as Parquet (:func:`spill`;
            the results then carry paths, not tables); None keeps them in memory.
    """
    folder = str(spill_to) if spill_to is not None else None
    tasks = [(f.snapshot["format"], str(f.abspath), i, folder) for i, f in enumerate(files, start=1)]
    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(tasks) <= 1:
        for t in tasks:
            yield _parse(t)
            if progress:
                progress()
        return
    largest_first = sorted(range(len(tasks)), key=lambda i: -files[i].abspath.stat().st_size)
    with ProcessPoolExecutor(max_workers=min(workers, len(tasks)), initializer=exit_with_parent,
                             initargs=(os.getpid(),)) as pool:
        futures = [None] * len(tasks)
        with sigint_held():  # the workers are forked on the first submit
            for i in largest_first:
                futures[i] = pool.submit(_parse, tasks[i])
        try:
            for i in range(len(futures)):
                result, futures[i] = futures[i].result(), None  # in file order; hold no result twice
                yield result
                if progress:
                    progress()
        except BaseException:
            # Ctrl-C (the workers ignore it, sphragis.workers) or an error: drop the files not
            # started instead of parsing them all before the pool closes
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def parse_all(files: list[SourceFile], *, workers: int | None = None, progress=None) -> list[ArrowFile]:
    """Parse ``files`` in a process pool; results keep the order of ``files`` (see :func:`iter_parsed`).

    Args:
        files: from :func:`sphragis.ingest.sources.discover`.
        workers: pool size (default: ``os.cpu_count()``); 1 parses in-process.
        progress: optional callable invoked once per finished file (for progress bars).
    """
    return list(iter_parsed(files, workers=workers, progress=progress))


def _elements_table(file_ids: list[int], preambles: list) -> pa.Table:
    """``raw_file_elements`` rows of the files' preambles (:func:`sphragis.ingest.preamble.element_columns`)."""
    cols = element_columns(list(zip(file_ids, preambles)))
    cols["attrs"] = _map_array(cols["attrs"])
    return pa.Table.from_pydict(cols, schema=pa.schema([
        ("file_id", pa.int32()), ("element_pos", pa.int32()), ("parent_pos", pa.int32()), ("depth", pa.int32()),
        ("tag", pa.string()), ("namespace", pa.string()), ("attrs", _MAP), ("text", pa.string()), ("tail", pa.string())]))


class AccountError(ValueError):
    """A file's sentences or words counted by a plain scan differ from those ingested plus rejected."""


def check_account(path: str, af: ArrowFile) -> None:
    """Check one file's account (SPEC §2, §13): the sentence starts counted by a scan independent
    of the parser (``n_sentences_expected``: XML ``sentence`` start tags outside comments, CoNLL-U
    blank-line-separated blocks) equal the sentences ingested plus the sentences rejected (rejects
    with a ``sentence_pos``; a file-level reject names no sentence); and the words counted so
    (``n_words_expected``: XML ``word`` start tags, CoNLL-U token rows) equal the tokens ingested
    plus the words the rejects take (their ``n_words``: a rejected sentence's words, a word
    outside every sentence).

    Raises:
        AccountError: naming the file and the three counts that differ; the build fails (nothing
            may be silently lost).
    """
    rejected = sum(1 for p in af.rejects["sentence_pos"] if p is not None)
    if af.n_sentences + rejected != af.n_sentences_expected:
        raise AccountError(f"ingest account of {path} does not hold: {af.n_sentences_expected} sentences in the "
                           f"file, {af.n_sentences} ingested + {rejected} rejected (a parser bug: report it "
                           "with the file)")
    words_rejected = sum(af.rejects["n_words"])
    if af.n_tokens + words_rejected != af.n_words_expected:
        raise AccountError(f"ingest account of {path} does not hold: {af.n_words_expected} words in the file, "
                           f"{af.n_tokens} ingested + {words_rejected} rejected (a parser bug: report it with "
                           "the file)")


def load(con: duckdb.DuckDBPyConnection, files: list[SourceFile], parsed: Iterable[ArrowFile], *,
         spill_to: Path | None = None) -> dict:
    """Create the raw tables (``sql/ddl/raw.sql``) and insert the parsed files.

    Rows go through Parquet (:func:`spill`): once every file is parsed, each table is filled by
    one statement over all the files (named queries ``ingest_raw_sentences`` and
    ``ingest_raw_tokens``), which keeps the rows in file order.

    Args:
        con: the warehouse being built.
        files: from :func:`sphragis.ingest.sources.discover`.
        parsed: one :class:`ArrowFile` per entry of ``files``, in the same order: a list, or
            the stream of :func:`iter_parsed` (each file is recorded as it arrives; the rows are
            inserted once the stream ends).
            Results already spilled (``iter_parsed(..., spill_to=...)``) are read where they are;
            in-memory ones are spilled here first.
        spill_to: folder for in-memory results' Parquet files (default: a temporary folder).

    Returns:
        A summary dict: per project ``files``, ``counted`` (sentences in the files, by the plain
        scan), ``sentences`` (ingested), ``words_counted`` (words in the files, by the plain
        scan), ``tokens`` (ingested), ``rejects`` (rows of ``ingest_rejects``), ``words_rejected``
        (the words those rows take).

    Raises:
        AccountError: a file's sentences or words counted differ from those ingested plus rejected
            (:func:`check_account`).
    """
    con.execute((DDL_DIR / "raw.sql").read_text())
    file_rows = {k: [] for k in (
        "file_id", "snapshot", "project", "treebank_source", "commit", "upstream", "license", "path", "format",
        "sha256", "bytes", "n_sentences_expected", "n_sentences_ingested", "n_words_expected", "n_tokens_ingested",
        "root_attrs", "preamble")}
    spilled: list[ArrowFile] = []
    first_uids: list[int] = []  # per file, the sentence_uid of its first sentence
    rej = {k: [] for k in ("file_id", "path", "line", "sentence_pos", "upstream_sentence_id", "reason", "n_words")}
    own_folder = tempfile.TemporaryDirectory(prefix="sphragis-ingest-") if spill_to is None else None
    folder = Path(own_folder.name) if own_folder else spill_to

    def insert(name: str, tbl: pa.Table) -> None:
        con.register("_arrow_in", tbl)
        con.execute(f"insert into {name} by name select * from _arrow_in")
        con.unregister("_arrow_in")

    next_uid = 1
    n_parsed = 0
    try:
        for file_id, pf in enumerate(parsed, start=1):  # drive the stream to its end (not zip)
            n_parsed = file_id
            if file_id > len(files):
                raise ValueError(f"load: {len(files)} files but more parse results")
            sf = files[file_id - 1]
            if pf.tokens_path is None:
                spill(pf, folder, file_id, sf.path)
            snap = sf.snapshot
            for k, v in (("file_id", file_id), ("snapshot", snap["name"]), ("project", snap["project"]),
                         ("treebank_source", snap["treebank_source"]), ("commit", snap["commit"]),
                         ("upstream", snap["upstream"]), ("license", snap["license"]), ("path", sf.path),
                         ("format", snap["format"]), ("sha256", pf.sha256), ("bytes", pf.bytes),
                         ("n_sentences_expected", pf.n_sentences_expected), ("n_sentences_ingested", pf.n_sentences),
                         ("n_words_expected", pf.n_words_expected), ("n_tokens_ingested", pf.n_tokens),
                         ("root_attrs", pf.root_attrs),
                         ("preamble", pf.preamble or None)):
                file_rows[k].append(v)
            # sentence_uid: global and sequential in (file_id, sentence_pos) order.
            spilled.append(pf)
            first_uids.append(next_uid)
            next_uid += pf.n_sentences
            n_rej = len(pf.rejects["reason"])
            check_account(sf.path, pf)
            rej["file_id"].extend([file_id] * n_rej)
            rej["path"].extend([sf.path] * n_rej)
            for k in ("line", "sentence_pos", "upstream_sentence_id", "reason", "n_words"):
                rej[k].extend(pf.rejects[k])
        if n_parsed != len(files):
            raise ValueError(f"load: {len(files)} files but {n_parsed} parse results")
        if spilled:
            # One statement per table: DuckDB inserts it in parallel and compresses each row
            # group once (batch inserts re-compress row groups for more CPU, SPEC §13).
            params = {"first_uids": first_uids}
            con.execute(query("ingest_raw_sentences"), {**params, "paths": [af.sentences_path for af in spilled]})
            con.execute(query("ingest_raw_tokens"), {**params, "paths": [af.tokens_path for af in spilled]})
    finally:
        if own_folder:
            own_folder.cleanup()
    file_rows["root_attrs"] = _map_array(file_rows["root_attrs"])
    files_tbl = pa.Table.from_pydict(file_rows, schema=pa.schema([
        ("file_id", pa.int32()), ("snapshot", pa.string()), ("project", pa.string()), ("treebank_source", pa.string()),
        ("commit", pa.string()), ("upstream", pa.string()), ("license", pa.string()), ("path", pa.string()),
        ("format", pa.string()), ("sha256", pa.string()), ("bytes", pa.int64()), ("n_sentences_expected", pa.int32()),
        ("n_sentences_ingested", pa.int32()), ("n_words_expected", pa.int32()), ("n_tokens_ingested", pa.int32()),
        ("root_attrs", _MAP),
        ("preamble", pa.list_(pa.string()))]))
    rejects_tbl = pa.Table.from_pydict(rej, schema=pa.schema([
        ("file_id", pa.int32()), ("path", pa.string()), ("line", pa.int32()), ("sentence_pos", pa.int32()),
        ("upstream_sentence_id", pa.string()), ("reason", pa.string()), ("n_words", pa.int32())]))
    insert("raw_files", files_tbl)
    insert("raw_file_elements", _elements_table(file_rows["file_id"], file_rows["preamble"]))
    insert("ingest_rejects", rejects_tbl)
    con.register("ingest_files_in", files_tbl)
    con.register("ingest_rejects_in", rejects_tbl)
    rows = con.execute(query("ingest_summary")).fetchall()
    con.unregister("ingest_files_in")
    con.unregister("ingest_rejects_in")
    return {p: {"files": nf, "counted": int(nc), "sentences": int(ns), "words_counted": int(nwc), "tokens": int(nt),
                "rejects": int(nr), "words_rejected": int(nwr)}
            for p, nf, nc, ns, nwc, nt, nr, nwr in rows}
