"""The CoNLL-U parser (SPEC §2): UD Perseus, UD PROIEL and UD PTNK files, verbatim, into a
:class:`sphragis.ingest.parsers.ParsedFile` (row shapes in :mod:`sphragis.ingest.parsers`).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from sphragis.config import MAX_SOURCE_BYTES, MAX_TREE_DEPTH
from sphragis.files import read_regular

from .parsers import CONTROL_NOT_TAB, ParsedFile, is_uint, may_hold_control, too_deep
from .sources import BAD_BYTE as _BAD_BYTE
from .sources import escape_bad_bytes

_CONLLU_ID = re.compile(r"^(?:[1-9]\d*|[1-9]\d*-[1-9]\d*|\d+\.[1-9]\d*)$", re.ASCII)
#: Line ends of any kind: CRLF, CR alone, LF (SPEC §2: "line ends of any kind are line ends").
_LINE_END = re.compile(r"\r\n?|\n")
CONLLU_COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")


def conllu_text(data: bytes) -> tuple[str, bool]:
    """The text of a CoNLL-U file's bytes: UTF-8 (a BOM dropped), every line end (CRLF, CR, LF)
    made LF. Undecodable bytes do not raise: they stay in the text as ``surrogateescape``
    surrogates, and the second value is True, so the parser rejects the sentences holding them.

    Returns:
        (text, has_bad_bytes).
    """
    try:
        text, bad = data.decode("utf-8-sig"), False
    except UnicodeDecodeError:
        text, bad = data.decode("utf-8-sig", "surrogateescape"), True
    if "\r" in text:
        text = _LINE_END.sub("\n", text)
    return text, bad


#: A CoNLL-U sentence start: a line that is not blank after a blank line (text prefixed "\n\n").
_CONLLU_START = re.compile(r"\n[ \t]*\n[ \t]*(?=[^ \t\n])")


def count_conllu_sentences(text: str) -> int:
    """Sentence starts in CoNLL-U ``text`` (from :func:`conllu_text`) as the format defines them: a
    non-blank line at the start of the file or after a blank line (blank: only spaces and tabs).
    Counted by a regular expression, independently of :func:`parse_conllu`'s blocks (SPEC §13)."""
    return len(_CONLLU_START.findall("\n\n" + text))


#: A CoNLL-U token row: a line that is neither blank nor a comment (one match per row).
_CONLLU_ROW = re.compile(r"^(?!#)[ \t]*[^ \t\n]", re.MULTILINE)


def count_conllu_rows(text: str) -> int:
    """Token rows (words, multiword ranges, empty nodes) in CoNLL-U ``text`` (from
    :func:`conllu_text`): lines that are neither blank nor comments. Counted by a regular
    expression, independently of :func:`parse_conllu`'s blocks (SPEC §13)."""
    return len(_CONLLU_ROW.findall(text))


def parse_conllu(path: Path) -> ParsedFile:
    """Parse one CoNLL-U file verbatim (UD Perseus, UD PROIEL, UD PTNK).

    Every token row (including multiword ranges ``2-3`` and empty nodes ``4.1``) is kept with its
    ten columns as written. Comment lines are kept verbatim per sentence; ``# sent_id`` gives the
    upstream sentence id and the last ``# newdoc id`` the document id. A UTF-8 BOM is dropped;
    CRLF and CR alone end lines as LF does; a blank line holds only spaces and tabs.

    A problem of one sentence rejects that sentence whole (one reject naming the line and the
    problem; the rest of the file still loads, SPEC §2): a row that is not ten tab-separated
    columns, an ID that is not an integer/range/decimal, a multiword range of fewer than two
    words, overlapping or past the last word, a HEAD that is neither ``_`` nor an integer or is
    outside the sentence, a head chain deeper than :data:`MAX_TREE_DEPTH`, a sentence without
    token rows, bytes that are not UTF-8, a control character (category Cc; a tab only in a
    comment), a ``# sent_id`` already used earlier in the file.

    Args:
        path: the .conllu file (a regular file of at most :data:`MAX_SOURCE_BYTES` bytes).

    Raises:
        sphragis.files.InputFileError: ``path`` is not a regular file, or is too large.

    Returns:
        ParsedFile (``n_sentences_expected``: :func:`count_conllu_sentences`; ``n_words_expected``:
        :func:`count_conllu_rows`; a rejected sentence takes its token rows).
    """
    data = read_regular(path, MAX_SOURCE_BYTES)
    pf = ParsedFile(path=path, sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    text, bad_bytes = conllu_text(data)
    has_control = may_hold_control(data)
    # Lines end at line ends only, so line numbers are those of any editor; str.splitlines would
    # also break at U+2028, U+0085, form feeds... inside a field.
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    document_id: str | None = None
    seen_ids: dict[str, int] = {}  # sent_id -> line of its first `# sent_id`
    block: list[tuple[int, str]] = []
    pos = 0
    s, t = pf.sentences, pf.tokens
    t_id, t_form, t_lemma, t_upos, t_xpos, t_feats = t["id"], t["form"], t["lemma"], t["upos"], t["xpos"], t["feats"]
    t_head, t_deprel, t_deps, t_misc = t["head"], t["deprel"], t["deps"], t["misc"]

    def flush() -> None:
        nonlocal pos, document_id
        if not block:
            return
        pos += 1
        comments = [ln for _, ln in block if ln.startswith("#")]
        sent_id = sent_id_line = None
        for n, c in block:
            if not c.startswith("#"):
                continue
            key, _, value = c[1:].partition("=")
            key = key.strip()
            if key == "sent_id":
                sent_id, sent_id_line = value.strip(), n
            elif key == "newdoc id":
                document_id = value.strip()
            if bad_bytes:  # ids are kept; an undecodable byte in one is written as \xNN
                sent_id, document_id = escape_bad_bytes(sent_id), escape_bad_bytes(document_id)
            elif key == "newdoc" and not value:
                document_id = None
        problem = None
        if bad_bytes or has_control:
            problem = _check_conllu_characters(block)
        rows = [(n, ln.split("\t")) for n, ln in block if not ln.startswith("#")]
        if problem is None:
            problem = _check_conllu_rows(rows) if rows else (block[0][0], f"line {block[0][0]}: sentence has comments but no token rows")
        if sent_id is not None:
            first = seen_ids.setdefault(sent_id, sent_id_line)
            if problem is None and first != sent_id_line:
                problem = (sent_id_line, f"line {sent_id_line}: duplicate sent_id {sent_id!r} (first at line {first})")
        if problem is not None:
            bad_line, why = problem
            pf.reject(bad_line, pos, sent_id, why, len(rows))
            return
        n_rows = len(rows)
        t["sentence_pos"].extend([pos] * n_rows)
        t["token_pos"].extend(range(1, n_rows + 1))
        t["line"].extend([n for n, _ in rows])
        for _, (c0, c1, c2, c3, c4, c5, c6, c7, c8, c9) in rows:
            t_id.append(c0)
            t_form.append(c1)
            t_lemma.append(c2)
            t_upos.append(c3)
            t_xpos.append(c4)
            t_feats.append(c5)
            t_head.append(c6)
            t_deprel.append(c7)
            t_deps.append(c8)
            t_misc.append(c9)
        t["attrs"].extend([None] * n_rows)
        s["sentence_pos"].append(pos)
        s["line"].append(block[0][0])
        s["upstream_sentence_id"].append(sent_id)
        s["document_id"].append(document_id)
        s["subdoc"].append(None)
        s["attrs"].append(None)
        s["comments"].append(comments)
        s["extra_xml"].append(None)
        s["n_tokens"].append(n_rows)

    for lineno, ln in enumerate(lines, start=1):
        if not ln.strip(" \t"):
            flush()
            block = []
        else:
            block.append((lineno, ln))
    flush()
    pf.n_sentences_expected = count_conllu_sentences(text)
    pf.n_words_expected = count_conllu_rows(text)
    return pf


def _check_conllu_characters(block: list[tuple[int, str]]) -> tuple[int, str] | None:
    """First undecodable byte or control character in a sentence's lines, as (line, message)."""
    for n, ln in block:
        if m := _BAD_BYTE.search(ln):
            byte = ord(m.group()) - 0xDC00
            return n, f"line {n}: invalid UTF-8 byte 0x{byte:02x} at column {m.start() + 1}"
        if m := CONTROL_NOT_TAB.search(ln):
            where = "a comment" if ln.startswith("#") else CONLLU_COLUMNS[min(ln.count("\t", 0, m.start()), 9)]
            return n, f"line {n}: control character U+{ord(m.group()):04X} in {where}"
    return None


def _check_conllu_rows(rows: list[tuple[int, list[str]]]) -> tuple[int, str] | None:
    """First problem in a sentence's token rows (line number, split columns) as (line, message),
    or None when well formed."""
    n_words = 0
    ranges = []
    for n, cols in rows:
        if len(cols) != 10:
            return n, f"line {n}: expected 10 tab-separated columns, found {len(cols)}"
        if not _CONLLU_ID.match(cols[0]):
            return n, f"line {n}: ID {cols[0]!r} is not an integer, range or decimal"
        if is_uint(cols[0]):
            n_words += 1
        elif "-" in cols[0]:
            ranges.append(n)
    if ranges:
        end = 0
        for n, cols in rows:
            if "-" not in cols[0]:
                continue
            a, b = map(int, cols[0].split("-"))
            if a >= b:
                return n, f"line {n}: multiword range {cols[0]} spans fewer than two words"
            if a <= end:
                return n, f"line {n}: multiword range {cols[0]} overlaps the range ending at word {end}"
            if b > n_words:
                return n, f"line {n}: multiword range {cols[0]} goes past the last word ({n_words} words)"
            end = b
    for n, cols in rows:
        if not is_uint(cols[0]):
            continue
        head = cols[6]
        if head == "_":
            continue
        if not is_uint(head):
            return n, f"line {n}: HEAD {head!r} is not an integer"
        if int(head) > n_words:
            return n, f"line {n}: HEAD {head} is outside the sentence ({n_words} words)"
    if n_words > MAX_TREE_DEPTH:
        words = [(n, cols) for n, cols in rows if is_uint(cols[0])]
        deep = too_deep([c[0] for _, c in words], [c[6] for _, c in words])
        if deep is not None:
            n = words[deep][0]
            return n, f"line {n}: head chain deeper than {MAX_TREE_DEPTH:,} tokens"
    return None
