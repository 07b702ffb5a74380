"""The inputs ``make bench`` (:mod:`sphragis.bench`) builds from: the source files and their
deterministic subsets, the parse floor over them, the long-sentence file and the
seeds with the one-row registry edit (SPEC §13)."""

from __future__ import annotations

import hashlib
import math
import shutil
import time
from pathlib import Path

from . import config

#: The one-row edit: (project, document_key of the works_registry.csv row, column, new value).
REGISTRY_EDIT = ("agdt", "tlg0003.tlg001.perseus-grc1.1.tb.xml", "work", "History of the Peloponnesian War (edited)")
#: The long-sentence case (SPEC §13): tokens of the flat sentence and of the chain and the cycle
#: (1,000: a tree deeper than int_tree_checks follows from its root, 1,000 levels, fails the build),
#: the file that holds them, and the ``# newdoc id`` that files them under a retained work of
#: works_registry.csv.
LONG_FLAT_TOKENS = 20_000
#: The flat sentence of the second long build (``make bench``): five times as long, so that a model
#: whose time or memory grows faster than the sentence shows it.
LONGER_FLAT_TOKENS = 100_000
LONG_CHAIN_TOKENS = 1_000
LONG_FILE = "grc_perseus-ud-long.conllu"
LONG_DOCUMENT = "tlg0008.tlg001.perseus-grc1.12.tb.xml"
#: The words after the root verb, in turn (form, lemma, UPOS, XPOS, FEATS, DEPREL): every sixth a
#: comma, which the published tree removes (its dependent re-attaches to its head).
LONG_WORDS = (("λόγον", "λόγος", "NOUN", "n-s---ma-", "Case=Acc|Gender=Masc|Number=Sing", "obj"),
              ("καλῶς", "καλῶς", "ADV", "d--------", "_", "advmod"),
              ("ἀνήρ", "ἀνήρ", "NOUN", "n-s---mn-", "Case=Nom|Gender=Masc|Number=Sing", "nsubj"),
              ("σοφός", "σοφός", "ADJ", "a-s---mn-", "Case=Nom|Gender=Masc|Number=Sing", "amod"),
              ("ἐν", "ἐν", "ADP", "r--------", "_", "case"),
              (",", ",", "PUNCT", "u--------", "_", "punct"))


def source_files(settings: config.Settings):
    """The treebank files ingest reads (:func:`sphragis.ingest.sources.discover`)."""
    from . import build
    from .ingest import sources as ingest_sources

    return ingest_sources.discover(build.snapshot_roots(settings), config.snapshots())


def parse_floor(files) -> dict:
    """Time the raw parse floor over ``files`` in this process (SPEC §13): lxml ``iterparse`` over
    every ``word`` of each XML file (cleared), read + decode + ``split("\\n")`` of each CoNLL-U file.

    Returns:
        ``{"seconds", "xml_words", "conllu_lines", "bytes"}``.
    """
    from lxml import etree

    words = lines = size = 0
    t0 = time.perf_counter()
    for f in files:
        size += f.abspath.stat().st_size
        if f.snapshot["format"] != "conllu":
            try:
                for _ev, el in etree.iterparse(str(f.abspath), events=("end",), tag="{*}word", huge_tree=True):
                    words += 1
                    el.clear()
            except etree.XMLSyntaxError:
                pass
        else:
            lines += len(f.abspath.read_bytes().decode("utf-8-sig").split("\n"))
    return {"seconds": time.perf_counter() - t0, "xml_words": words, "conllu_lines": lines, "bytes": size}


def subset_tree(files, fraction: float, dest: Path) -> int:
    """Make ``dest/<snapshot>/<path>`` symlinks to a deterministic ``fraction`` of ``files``: per
    snapshot, the ``ceil(fraction · n)`` files with the smallest sha256 of their path. Returns the
    bytes of the files chosen."""
    size = 0
    for f in subset_files(files, fraction):
        link = dest / f.snapshot["name"] / f.path
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(f.abspath)
        size += f.abspath.stat().st_size
    return size


def subset_files(files, fraction: float) -> list:
    """The deterministic ``fraction`` of ``files`` :func:`subset_tree` links: per snapshot, the
    ``ceil(fraction · n)`` files with the smallest sha256 of their path."""
    by_snap: dict[str, list] = {}
    for f in files:
        by_snap.setdefault(f.snapshot["name"], []).append(f)
    return [f for fs in by_snap.values()
            for f in sorted(fs, key=lambda f: hashlib.sha256(f.path.encode()).hexdigest())[:max(1, math.ceil(fraction * len(fs)))]]


def long_sentence_conllu(n_tokens: int, shape: str, sent_id: str) -> str:
    """One UD Perseus CoNLL-U sentence of ``n_tokens`` tokens under :data:`LONG_DOCUMENT`: token 1
    is the root verb ``λέγει``; tokens 2..n are :data:`LONG_WORDS` in turn, headed by token 1
    (``shape`` ``"flat"``), by the token before (``"chain"``), or by the token after, token n by
    token 2 (``"cycle"``: a cycle of n - 1 tokens that the build breaks at token 2). ``# sent_id``
    is ``<LONG_DOCUMENT>@<sent_id>``. Returns the sentence's lines and the blank line ending it.

    Raises:
        ValueError: an unknown ``shape``.
    """
    heads = {"flat": lambda i: 1, "chain": lambda i: i - 1, "cycle": lambda i: i + 1 if i < n_tokens else 2}
    if shape not in heads:
        raise ValueError(f"shape must be one of {sorted(heads)}, not {shape!r}")
    verb_feats = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin|Voice=Act"
    rows = [("λέγει", "λέγω", "VERB", "v3spia---", verb_feats, 0, "root")]
    for i in range(2, n_tokens + 1):
        form, lemma, upos, xpos, feats, deprel = LONG_WORDS[(i - 2) % len(LONG_WORDS)]
        rows.append((form, lemma, upos, xpos, feats, heads[shape](i), deprel))
    lines = [f"# newdoc id = {LONG_DOCUMENT}", f"# sent_id = {LONG_DOCUMENT}@{sent_id}",
             "# text = " + " ".join(r[0] for r in rows)]
    lines += ["\t".join(map(str, (i, *r, "_", "_"))) for i, r in enumerate(rows, 1)]
    return "\n".join(lines) + "\n\n"


def long_sentence_file(dest: Path, flat_tokens: int = LONG_FLAT_TOKENS) -> Path:
    """Write :data:`LONG_FILE` (a flat sentence of ``flat_tokens`` tokens, default
    :data:`LONG_FLAT_TOKENS`, sent_id ``flat``, then a chain and a cycle of
    :data:`LONG_CHAIN_TOKENS`, sent_ids ``chain`` and ``cycle``) into ``dest``, the ``ud-perseus``
    snapshot folder of a source tree (replacing the file there); returns its path."""
    path = dest / LONG_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(long_sentence_conllu(flat_tokens, "flat", "flat")
                    + long_sentence_conllu(LONG_CHAIN_TOKENS, "chain", "chain")
                    + long_sentence_conllu(LONG_CHAIN_TOKENS, "cycle", "cycle"), encoding="utf-8")
    return path


def edited_seeds(dest: Path) -> Path:
    """A copy of ``sql/seeds`` in ``dest`` with :data:`REGISTRY_EDIT` applied to one row."""
    import csv

    shutil.copytree(config.SEEDS_DIR, dest)
    path = dest / "works_registry.csv"
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    project, key, column, value = REGISTRY_EDIT
    hits = [r for r in rows if (r["project"], r["document_key"]) == (project, key)]
    if len(hits) != 1:
        raise ValueError(f"{path}: expected one row for {project} | {key}, found {len(hits)}")
    hits[0][column] = value
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return dest


def longer_vs_long(runs: dict) -> dict:
    """The ``longer`` build against the ``long`` one (:func:`long_sentence_runs`): for wall time,
    CPU and peak RSS, what each adds to the ``small`` tree's and the ratio of the two additions
    (linear: about ``LONGER_FLAT_TOKENS / LONG_FLAT_TOKENS``); and the models whose seconds grew
    more than that ratio (``{model: [long seconds, longer seconds]}``, those above 0.5 s)."""
    length_ratio = LONGER_FLAT_TOKENS / LONG_FLAT_TOKENS
    if not all(runs.get(k, {}).get("ok") for k in ("small", "long", "longer")):
        return {"length_ratio": length_ratio, "ok": False}
    out: dict = {"length_ratio": length_ratio, "ok": True}
    for key in ("wall_seconds", "cpu_seconds", "peak_rss_bytes"):
        base = runs["small"].get(key) or 0
        added = [(runs[k].get(key) or 0) - base for k in ("long", "longer")]
        out[key] = {"long_added": added[0], "longer_added": added[1],
                    "ratio": added[1] / added[0] if added[0] > 0 else None}
    long_m, longer_m = (runs[k]["build"].get("model_seconds", {}) for k in ("long", "longer"))
    out["models_growing_faster"] = {m: [long_m.get(m, 0.0), s] for m, s in sorted(longer_m.items())
                                    if s > 0.5 and s > length_ratio * max(long_m.get(m, 0.0), 0.1)}
    return out
