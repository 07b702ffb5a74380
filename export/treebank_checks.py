"""The checks of the training treebank's files (seed 001 "Leakage controls"): the two loaders and the
UD validator, on every core, in slices of sentences, with a per-sentence cache.

Every written sentence is re-read with the CoNLL 2018 loader (``udtools.udeval.load_conllu``,
through :func:`.conllu_units.loader_problem`) and the ``conllu`` library, and checked with the UD
validator (``udtools.validator.Validator``, language :data:`VALIDATOR_LANG`) up to the chosen
level (:data:`LEVELS`; default :data:`VALIDATOR_LEVEL`); an error at or below
:data:`REQUIRED_LEVEL` fails the export, the messages above it are summed up by kind.

**Slices.** The files are cut into slices of :data:`SLICE_SENTENCES` sentences (at the sentence
boundaries of ``udtools.utils.next_sentence``), and every slice is one task of a process pool: the
two loaders and the validator's ``validate_sentence`` on each sentence, with the file's own line
numbers. A slice gives the incidents of the whole file because the validator's state across
sentences is carried or rebuilt:

* what one sentence leaves for the next (the sentence id named by incidents before the next
  ``# sent_id``, ``SpaceAfter=No`` before a ``newdoc``/``newpar``, and the class-wide
  ``Incident.default_*`` that incidents without a line take, e.g. the last node's line): a slice
  first validates the sentence before it and drops that sentence's incidents; a file's first
  sentence starts from the validator's initial state (as in a fresh process);
* ``non-unique-sent-id`` (level 2), across slices and files: :func:`_duplicate_sent_ids`, over all
  files in order, gives the validator's record (line = first token line);
* feature errors held back until the corpus shows a feature (``delayed_feature_errors``): each
  sentence is validated as if none was seen yet; its held-back incidents count when any sentence
  of the file has a feature (as the whole file's run confirms them at the first one);
* enhanced graphs, empty nodes, ``parallel_id``, ``global.Entity``, non-LF newlines (checks
  across sentences this export never writes) and any incident at level 1-2 (after which the
  validator may skip a sentence's later checks, so the carried state may differ): the file is
  validated again as a whole (:func:`_validate_file`) and that result is used.

**Cache.** With a cache folder, each sentence's result (incidents with lines relative to the
sentence, held-back ones marked) is kept under the sha256 of the validator's and loaders'
versions, the language, the level, :data:`CACHE_FORMAT`, the sentence before it (its carried
state) and the sentence itself (one file, ``sentences.parquet``); only sentences that
passed both loaders are kept, so a cached sentence is neither validated nor loaded again. A rerun
with other options (``--merged``, another split) reuses every sentence whose text and predecessor
are unchanged; entries this run did not use are dropped.
"""

from __future__ import annotations

import hashlib
import io
import multiprocessing
import os
import re
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sphragis.workers import exit_with_parent

from .conllu_units import loader_problem
from .treebank_cache import Record, from_cache, read_cache, write_cache
from .treebank_options import TreebankError

#: The UD validator level the native conversion meets: levels 1 (CoNLL-U format) and 2 (UD
#: format: universal UPOS/DEPREL, feature syntax, one root, no cycles, text = forms) have no
#: error on the real sources; level 3 (content: e.g. punctuation attached non-projectively or
#: carrying dependents, which the source heads of AGDT-lineage trees do) and above are reported,
#: not enforced.
REQUIRED_LEVEL = 2
#: Validator language (ISO 639-3 code of Ancient Greek in UD).
VALIDATOR_LANG = "grc"
#: The levels ``--validator-level`` accepts (the gate, :data:`REQUIRED_LEVEL`, is always run).
LEVELS = (2, 3, 4, 5)
#: The default validator level: every level (the summary of levels 3-5 in the manifest).
VALIDATOR_LEVEL = 5
#: Sentences per task of the process pool: small enough that the cores end together (the largest
#: file is 28,166 sentences), large enough that a task's set-up (a validator per process, one
#: carried sentence) stays under 1 % of it.
SLICE_SENTENCES = 500
#: Version of the cache entries' meaning (part of the key): raise it when what a cached sentence
#: stands for changes.
CACHE_FORMAT = 1

_SENT_ID = re.compile(r"^# sent_id = (.*)$")
#: Lines that may end a sentence (neither comment nor token line): empty or whitespace-only
#: lines are confirmed with ``udtools.utils.is_whitespace``, as ``next_sentence`` does.
_LINE_NOT_TOKEN = re.compile(r"^(?![#0-9]).*$", re.M)


# --------------------------------------------------------------------------------------------
# Sentences
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    """One sentence of a file as the validator reads it: ``first`` = 1-based line of its first
    line, ``sent_id`` = the one ``sent_id`` comment's value (``None`` without exactly one),
    ``token_line`` = the line of its first non-comment line (where the validator reports
    sentence-level incidents)."""

    first: int
    sent_id: str | None
    token_line: int


def split_sentences(text: str) -> tuple[list[Sentence], list[str]]:
    """Cut a file's text (read in text mode, as the validator reads it) into sentences at the
    boundaries of ``udtools.utils.next_sentence``: a sentence ends with an empty or
    whitespace-only line; lines after the last one form a last sentence.

    Returns:
        The sentences in order and their blocks (their lines with their newlines, the closing
        empty line included; joined they give ``text`` back).
    """
    from udtools.utils import crex, is_whitespace

    out: list[Sentence] = []
    blocks: list[str] = []
    start, line = 0, 1

    def add(end: int) -> None:
        nonlocal start, line
        block = text[start:end]
        lines = block.split("\n")
        comments = 0
        while comments < len(lines) and lines[comments].startswith("#"):
            comments += 1
        ids = [m.group(1) for c in lines[:comments] if (m := crex.sentid.fullmatch(c))]
        out.append(Sentence(line, ids[0] if len(ids) == 1 else None, line + comments))
        blocks.append(block)
        line += block.count("\n")
        start = end

    for m in _LINE_NOT_TOKEN.finditer(text):
        s, e = m.span()
        if s >= len(text):
            break
        if s == e or is_whitespace(m.group()):
            add(min(e + 1, len(text)))
    if start < len(text):
        add(len(text))
    return out, blocks


def _lines(block: str) -> list[str]:
    """A sentence block's lines as ``next_sentence`` yields them (newlines stripped)."""
    lines = block.split("\n")
    return lines[:-1] if block.endswith("\n") else lines


# --------------------------------------------------------------------------------------------
# Worker side
# --------------------------------------------------------------------------------------------


_validators: dict[tuple[str, int], object] = {}
_defaults: dict[str, object] = {}


def _incident_class():
    """``udtools.incident.Incident``, its class-wide defaults (which the validator's checks
    overwrite as they run) saved the first time it is imported here."""
    from udtools.incident import Incident

    if not _defaults:
        _defaults.update({k: getattr(Incident, k) for k in dir(Incident) if k.startswith("default_")})
    return Incident


def _fresh_defaults() -> None:
    """Put the class-wide incident defaults back as a fresh process has them (the state the
    first sentence of a file is validated in)."""
    incident = _incident_class()
    for k, v in _defaults.items():
        setattr(incident, k, v)


def _validator(lang: str, level: int):
    key = (lang, level)
    if key not in _validators:
        from udtools.validator import Validator

        _validators[key] = Validator(lang=lang, level=level, output=None, max_store=0)
    return _validators[key]


def _record(inc) -> Record:
    return (int(inc.level), str(inc.get_type()), str(inc.testclass), str(inc.testid), int(inc.lineno),
            inc.sentid, str(inc.message))


def _validate_sentence(validator, state, sentence: tuple[int, str]) -> tuple[list[Record], list[Record], bool, bool]:
    """Validate one sentence (``(first line, block)``) on ``state``; returns its incidents, its
    held-back feature incidents (when it shows no feature itself), whether it shows a feature, and
    whether it uses something checked across sentences that slices do not carry."""
    first, block = sentence
    lines = _lines(block)
    state.error_tracker = []
    state.known_sent_ids = set()  # uniqueness: _duplicate_sent_ids, over every file
    state.seen_morpho_feature = None
    state.delayed_feature_errors = {}
    state.seen_enhanced_graph = state.seen_empty_node = state.seen_enhanced_orphan = None
    state.seen_global_entity = None
    state.known_parallel_ids = set()
    state.current_line = first + len(lines) - 1  # next_sentence's position when it yields the sentence
    validator.validate_sentence(lines, state)
    saw = state.seen_morpho_feature is not None
    held = [] if saw else [o["incident"] for d in state.delayed_feature_errors.values() for o in d["occurrences"]]
    whole = bool(state.seen_enhanced_graph or state.seen_empty_node or state.seen_enhanced_orphan
                 or state.seen_global_entity or state.known_parallel_ids)
    return [_record(i) for i in state.error_tracker], [_record(i) for i in held], saw, whole


def check_slice(name: str, lang: str, level: int | None, before: tuple[int, str] | None,
                sentences: list[tuple[int, str]], sent_ids: list[str | None]) -> tuple[str | None, list]:
    """The checks of one slice of a file (a task of the pool; also run in-process).

    Args:
        name: the file name (incidents name it).
        lang, level: the validator's language and level; ``None`` = loaders only.
        before: the sentence before the slice (its state is carried), or None at the file's start.
        sentences: ``(first line, block)`` of each sentence of the slice, in order.
        sent_ids: their ``sent_id`` values as written.

    Returns:
        ``(problem, results)``: a loader's one-line message naming the file, sentence and line
        (then ``results`` is empty), or None and, per sentence, ``(incidents, held-back
        incidents, shows a feature, needs the whole file)`` (empty without a level).
    """
    import conllu

    doc = "".join(b for _, b in sentences)
    offset = sentences[0][0] - 1
    starts = [f - offset for f, _ in sentences]
    failed = loader_problem(doc, starts)
    if failed is not None:
        k, message = failed
        message = re.sub(r"\b(at (?:line )?)(\d+)", lambda m: f"{m.group(1)}{int(m.group(2)) + offset}", message)
        return f"{name}: sentence {sent_ids[k]}: {message}", []
    try:
        read = [s.metadata.get("sent_id") for s in conllu.parse_incr(io.StringIO(doc))]
    except conllu.exceptions.ParseException as exc:
        return f"{name}: the conllu library cannot read the sentences from line {sentences[0][0]}: {exc}", []
    if read != list(sent_ids):
        k = next((i for i, (a, b) in enumerate(zip(read, sent_ids)) if a != b), min(len(read), len(sent_ids)))
        return (f"{name}: the conllu library reads {len(read)} sentences where {len(sent_ids)} were written "
                f"from line {sentences[0][0]}; first difference at sentence {sent_ids[min(k, len(sent_ids) - 1)]}"), []
    if level is None:
        return None, []
    from udtools.state import State

    validator = _validator(lang, level)
    _fresh_defaults()
    state = State()
    state.current_file_name = name
    if before is not None:
        _validate_sentence(validator, state, before)  # only for the state it leaves
    return None, [_validate_sentence(validator, state, s) for s in sentences]


def _validate_file(path: str, lang: str, level: int) -> list[Record]:
    """Every incident of one file validated as a whole from a fresh state (the fallback of the
    module docstring; a task of the pool)."""
    from udtools.validator import Validator

    _fresh_defaults()
    state = Validator(lang=lang, level=level, output=None, max_store=0).validate_files([path])
    return [_record(i) for i in state.error_tracker]


# --------------------------------------------------------------------------------------------
# Parent side
# --------------------------------------------------------------------------------------------


def _versions() -> str:
    """The versions of the checking libraries (part of the cache key)."""
    from importlib.metadata import version

    return f"udtools {version('udtools')}|conllu {version('conllu')}"


@dataclass
class _File:
    path: Path
    sentences: list[Sentence]
    keys: list[str]
    crlf: bool
    results: list = field(default_factory=list)  # per sentence: (incidents, held, saw, whole)
    cached: int = 0
    whole: Future | list[Record] | None = None


class Checks:
    """The loaders and the validator over the files of one export, in a process pool that runs
    while the next file is rendered (module docstring). Use as a context manager; :meth:`add`
    each file once written, then :meth:`result`.

    Creating it forks the workers (while the exporter is small, as
    :class:`.validation.UnitValidation` does).

    Args:
        level: validator level (one of :data:`LEVELS`), or None to run the loaders only.
        lang: validator language.
        cache: folder of the per-sentence cache, or None.
        jobs: worker processes (default ``os.cpu_count()``); 1 runs everything in this process.
        slice_sentences: sentences per task.

    Raises:
        TreebankError: a level outside :data:`LEVELS`.
    """

    def __init__(self, level: int | None = VALIDATOR_LEVEL, lang: str = VALIDATOR_LANG, cache: Path | None = None,
                 jobs: int | None = None, slice_sentences: int = SLICE_SENTENCES):
        if level is not None and level not in LEVELS:
            raise TreebankError(f"validator level {level!r}: choose one of {', '.join(map(str, LEVELS))}")
        self.level, self.lang, self.slice = level, lang, slice_sentences
        self.cache = cache if level is not None else None
        self.files: list[_File] = []
        self._tasks: list[tuple[_File, int, Future | tuple]] = []
        self._stored = read_cache(self.cache) if self.cache is not None else {}
        self._prefix = f"{CACHE_FORMAT}|{_versions()}|{lang}|{level}|".encode()
        self._pool: ProcessPoolExecutor | None = None
        jobs = jobs or os.cpu_count() or 1
        if jobs > 1:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            self._pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=exit_with_parent,
                                             initargs=(os.getpid(),))
            self._pool.submit(int).result()  # forks every worker now

    def _submit(self, fn, *args):
        return self._pool.submit(fn, *args) if self._pool is not None else (fn, args)

    def add(self, path: Path, sent_ids: Sequence[str] | None = None) -> None:
        """Cut the file ``path`` into slices and start their checks (cached sentences are not
        checked again).

        Args:
            path: a written CoNLL-U file.
            sent_ids: the sentence ids written into it, in order (None: those its comments give).

        Raises:
            TreebankError: the file holds other sentences than ``sent_ids``.
        """
        with open(path, encoding="utf-8") as fh:  # text mode, as the validator reads it
            text = fh.read()
            crlf = fh.newlines not in (None, "\n")
        sentences, blocks = split_sentences(text)
        del text
        ids = [s.sent_id for s in sentences]
        if sent_ids is not None and ids != list(sent_ids):
            k = next((i for i, (a, b) in enumerate(zip(ids, sent_ids)) if a != b), min(len(ids), len(sent_ids)))
            raise TreebankError(f"{path.name}: holds {len(ids)} sentences, {len(sent_ids)} written; first "
                                f"difference at sentence {k + 1}")
        keys = [hashlib.sha256(self._prefix + (blocks[i - 1] if i else "").encode() + b"\0"
                               + b.encode()).hexdigest() for i, b in enumerate(blocks)]
        f = _File(path, sentences, keys, crlf, [None] * len(sentences))
        self.files.append(f)
        todo = []
        for i, key in enumerate(keys):
            hit = self._stored.get(key)
            if hit is not None:
                f.results[i] = from_cache(hit, sentences[i])
                f.cached += 1
            else:
                todo.append(i)
        runs: list[list[int]] = []
        for i in todo:
            if runs and runs[-1][-1] == i - 1 and len(runs[-1]) < self.slice:
                runs[-1].append(i)
            else:
                runs.append([i])
        for run in runs:
            k = run[0] - 1
            task = self._submit(check_slice, path.name, self.lang, self.level,
                                (sentences[k].first, blocks[k]) if k >= 0 else None,
                                [(sentences[i].first, blocks[i]) for i in run], [ids[i] for i in run])
            self._tasks.append((f, run[0], task))

    def _wait(self, task):
        return task.result() if isinstance(task, Future) else task[0](*task[1])

    def result(self, required_level: int = REQUIRED_LEVEL) -> dict | None:
        """Wait for every check; store the cache; sum up the validator's incidents.

        Returns:
            None without a validator level, else ``{"lang", "validated_level", "required_level",
            "passed_level"`` (highest level with no error at it or below, at most the validated
            level), ``"errors"``, ``"warnings"``, ``"messages"``: list of ``{"level", "type",
            "class", "test_id", "count", "example"}`` sorted by level and count,
            ``"sentences"``, ``"sentences_cached"``, ``"files_validated_whole"``}.

        Raises:
            TreebankError: a loader rejects a sentence, or an error at ``required_level`` or below
                (naming file, line and sentence).
        """
        for f, start, task in self._tasks:
            problem, results = self._wait(task)
            if problem is not None:
                raise TreebankError(problem)
            f.results[start:start + len(results)] = results
        if self.level is None:
            return None
        for f in self.files:
            # levels 1-2: after such an incident the validator may skip a sentence's later checks
            if f.crlf or any(r[3] or any(inc[0] <= 2 for inc in (*r[0], *r[1])) for r in f.results):
                f.whole = self._submit(_validate_file, str(f.path), self.lang, self.level)
        for f in self.files:
            if f.whole is not None:
                f.whole = self._wait(f.whole)
        if self.cache is not None:
            write_cache(self.cache, [(key, f.sentences[i], f.results[i]) for f in self.files if f.whole is None
                                      for i, key in enumerate(f.keys)])
        return _summary(self.files, self.lang, self.level, required_level)

    def close(self) -> None:
        """Stop the worker processes (cancelling what has not started)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> Checks:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _incidents(f: _File) -> list[Record]:
    """A file's incidents in reading order: per sentence its own, then its held-back ones when
    any sentence of the file shows a feature (module docstring)."""
    if f.whole is not None:
        return [r for r in f.whole if r[3] != "non-unique-sent-id"]  # _duplicate_sent_ids gives those
    any_feature = any(r[2] for r in f.results)
    return [inc for r in f.results for inc in (*r[0], *(r[1] if any_feature else ()))]


def _duplicate_sent_ids(files: list[_File]) -> dict[int, list[Record]]:
    """The validator's ``non-unique-sent-id`` (level 2) over all files in order, by file index:
    a sentence whose only ``sent_id`` was seen before (the message names the earlier file when it
    is another)."""
    seen: dict[str, str] = {}
    out: dict[int, list[Record]] = {}
    for k, f in enumerate(files):
        name = f.path.name
        for s in f.sentences:
            if s.sent_id is None:
                continue
            if s.sent_id in seen:
                also = f" (also in {seen[s.sent_id]})" if seen[s.sent_id] != name else ""
                out.setdefault(k, []).append((2, "ERROR", "METADATA", "non-unique-sent-id", s.token_line, s.sent_id,
                                              f"Non-unique sent_id attribute '{s.sent_id}'.{also}"))
            seen.setdefault(s.sent_id, name)
    return out


def incidents(checks: Checks) -> list[tuple[str, Record]]:
    """Every validator incident of the checked files as ``(file name, record)``, files in order,
    each file's in reading order, then its ``non-unique-sent-id`` ones (after :meth:`Checks.result`)."""
    dupes = _duplicate_sent_ids(checks.files)
    return [(f.path.name, r) for k, f in enumerate(checks.files) for r in (*_incidents(f), *dupes.get(k, ()))]


def _summary(files: list[_File], lang: str, level: int, required_level: int) -> dict:
    counts: Counter = Counter()
    examples: dict[tuple, str] = {}
    min_error_level = 6
    first_required = None
    dupes = _duplicate_sent_ids(files)
    for k, f in enumerate(files):
        for inc in (*_incidents(f), *dupes.get(k, ())):
            lvl, typ, cls, test_id, line, sent, message = inc
            key = (lvl, typ, cls, test_id)
            counts[key] += 1
            examples.setdefault(key, f"{f.path.name} line {line} sent {sent}: {message}")
            if typ == "ERROR":
                min_error_level = min(min_error_level, lvl)
                if lvl <= required_level and first_required is None:
                    first_required = (f.path.name, inc)
    if first_required is not None:
        name, (lvl, typ, cls, test_id, line, sent, message) = first_required
        raise TreebankError(f"UD validator (level {required_level}, {lang}): {name} line {line} "
                            f"sentence {sent}: [{test_id}] {message}")
    messages = [{"level": k[0], "type": k[1], "class": k[2], "test_id": k[3], "count": n, "example": examples[k]}
                for k, n in sorted(counts.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][3]))]
    return {"lang": lang, "validated_level": level, "required_level": required_level,
            "passed_level": min(min_error_level - 1, level),
            "errors": sum(m["count"] for m in messages if m["type"] == "ERROR"),
            "warnings": sum(m["count"] for m in messages if m["type"] == "WARNING"),
            "messages": messages, "sentences": sum(len(f.sentences) for f in files),
            "sentences_cached": sum(f.cached for f in files),
            "files_validated_whole": [f.path.name for f in files if f.whole is not None]}
