"""Parsers for the two upstream formats (SPEC §2): AGDT-style XML and CoNLL-U.

Both return a :class:`ParsedFile`: column-oriented lists (cheap to turn into Arrow) holding every
sentence and token exactly as upstream wrote it, plus reject records for what could not be parsed.
Nothing is normalized here; the SQL models do that.

Row shapes (lists are parallel, one entry per row):

* sentences: ``sentence_pos`` (1-based), ``line``, ``upstream_sentence_id``, ``document_id``,
  ``subdoc``, ``attrs`` (dict of XML attributes, verbatim, in document order), ``comments`` (CoNLL-U comment lines),
  ``extra_xml`` (serialized non-word children), ``n_tokens``.
* tokens: ``sentence_pos``, ``token_pos`` (1-based), ``line``, ``id``, ``form``, ``lemma``, ``upos``,
  ``xpos``, ``feats``, ``head``, ``deprel``, ``deps``, ``misc`` (all verbatim strings or None),
  ``attrs`` (dict of XML attributes, verbatim, in document order; None for CoNLL-U).
* rejects: ``line``, ``sentence_pos``, ``upstream_sentence_id``, ``reason``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

SENTENCE_COLUMNS = (
    "sentence_pos", "line", "upstream_sentence_id", "document_id", "subdoc",
    "attrs", "comments", "extra_xml", "n_tokens",
)
TOKEN_COLUMNS = (
    "sentence_pos", "token_pos", "line", "id", "form", "lemma", "upos", "xpos", "feats",
    "head", "deprel", "deps", "misc", "attrs",
)
REJECT_COLUMNS = ("line", "sentence_pos", "upstream_sentence_id", "reason")

#: A sentence start tag as a plain byte scan sees it (used to count what a parse error cut off).
_SENTENCE_TAG = re.compile(rb"<sentence[\s>/]")
_CONLLU_ID = re.compile(r"^(?:[1-9]\d*|[1-9]\d*-[1-9]\d*|\d+\.[1-9]\d*)$")


@dataclass
class ParsedFile:
    """Everything parsed from one upstream file (see the module docstring for the row shapes).

    Attributes:
        path: the file read.
        sha256: hex digest of its bytes.
        bytes: its size in bytes.
        n_sentences_expected: sentence count by a plain scan (XML ``<sentence`` tags; CoNLL-U
            blank-line-separated blocks), so ingested + rejected can be checked against it.
        root_attrs: XML root attributes, verbatim and in order (None for CoNLL-U).
        preamble: serialized XML children of the root other than sentences.
    """

    path: Path
    sha256: str = ""
    bytes: int = 0
    n_sentences_expected: int = 0
    root_attrs: dict[str, str] | None = None
    preamble: list[str] = field(default_factory=list)
    sentences: dict[str, list] = field(default_factory=lambda: {c: [] for c in SENTENCE_COLUMNS})
    tokens: dict[str, list] = field(default_factory=lambda: {c: [] for c in TOKEN_COLUMNS})
    rejects: dict[str, list] = field(default_factory=lambda: {c: [] for c in REJECT_COLUMNS})

    def reject(self, line: int | None, sentence_pos: int | None, sent_id: str | None, reason: str) -> None:
        """Record one rejected sentence (or file-level problem) with the line it concerns."""
        for k, v in zip(REJECT_COLUMNS, (line, sentence_pos, sent_id, reason)):
            self.rejects[k].append(v)

    @property
    def n_sentences(self) -> int:
        return len(self.sentences["sentence_pos"])


def _localname(tag) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def parse_agdt_xml(path: Path) -> ParsedFile:
    """Parse one AGDT-style treebank XML file (AGDT, Gorman, Pedalion, Harrington).

    Accepts the projects' variants: single or double quoted attributes, any extra attributes on
    ``sentence``/``word`` (``ref``, ``sem``, ``cite``, ``gloss``, ``artificial``, ``insertion_id``...),
    namespaced roots and missing attributes. ``word`` attributes are kept verbatim in ``attrs``;
    ``id``/``form``/``lemma``/``postag``/``head``/``relation`` are also copied to the token columns
    (``postag`` → ``xpos``, ``relation`` → ``deprel``).

    Args:
        path: the XML file.

    Returns:
        ParsedFile. A syntax error does not raise: the sentences before it are kept, one reject
        names the parser's line and message, and every ``<sentence`` tag after the last parsed
        sentence gets its own reject (so ingested + rejected = expected).
    """
    data = path.read_bytes()
    pf = ParsedFile(path=path, sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    tag_lines = _sentence_tag_lines(data)
    pf.n_sentences_expected = len(tag_lines)
    s_cols, t_cols = pf.sentences, pf.tokens
    pos = 0
    root = None
    try:
        for event, el in etree.iterparse(
            _BytesSource(data), events=("start", "end"), huge_tree=True, remove_comments=False,
            resolve_entities=False, no_network=True,
        ):
            if event == "start":
                if root is None:
                    root = el
                    pf.root_attrs = dict(el.attrib)
                continue
            name = _localname(el.tag)
            parent = el.getparent()
            if name == "sentence":
                pos += 1
                attrs = dict(el.attrib)
                extra: list[str] = []
                n = 0
                for child in el:
                    if _localname(child.tag) == "word":
                        n += 1
                        a = child.attrib
                        t_cols["sentence_pos"].append(pos)
                        t_cols["token_pos"].append(n)
                        t_cols["line"].append(child.sourceline)
                        t_cols["id"].append(a.get("id"))
                        t_cols["form"].append(a.get("form"))
                        t_cols["lemma"].append(a.get("lemma"))
                        t_cols["upos"].append(None)
                        t_cols["xpos"].append(a.get("postag"))
                        t_cols["feats"].append(None)
                        t_cols["head"].append(a.get("head"))
                        t_cols["deprel"].append(a.get("relation"))
                        t_cols["deps"].append(None)
                        t_cols["misc"].append(None)
                        t_cols["attrs"].append(dict(a))
                    else:
                        extra.append(etree.tostring(child, encoding="unicode", with_tail=False))
                a = el.attrib
                s_cols["sentence_pos"].append(pos)
                s_cols["line"].append(el.sourceline)
                s_cols["upstream_sentence_id"].append(a.get("id"))
                s_cols["document_id"].append(a.get("document_id"))
                s_cols["subdoc"].append(a.get("subdoc"))
                s_cols["attrs"].append(attrs)
                s_cols["comments"].append(None)
                s_cols["extra_xml"].append(extra or None)
                s_cols["n_tokens"].append(n)
                el.clear(keep_tail=True)
                if parent is not None:
                    while el.getprevious() is not None:
                        del parent[0]
            elif parent is not None and parent is root:
                pf.preamble.append(etree.tostring(el, encoding="unicode", with_tail=False))
                el.clear(keep_tail=True)
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if exc.lineno else None
        pf.reject(line, None, None, f"XML syntax error at line {line}: {exc.msg}")
        for i, tag_line in enumerate(tag_lines[pos:], start=pos + 1):
            pf.reject(tag_line, i, None, f"sentence not parsed: file is malformed (XML syntax error at line {line})")
    return pf


class _BytesSource:
    """File-like wrapper so lxml reports line numbers while parsing bytes already read."""

    def __init__(self, data: bytes):
        self._data = memoryview(data)
        self._off = 0

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            n = len(self._data) - self._off
        chunk = self._data[self._off : self._off + n]
        self._off += len(chunk)
        return bytes(chunk)


def _sentence_tag_lines(data: bytes) -> list[int]:
    """1-based line numbers of every ``<sentence`` start tag found by a plain byte scan."""
    lines = []
    last, line = 0, 1
    for m in _SENTENCE_TAG.finditer(data):
        line += data.count(b"\n", last, m.start())
        last = m.start()
        lines.append(line)
    return lines


def parse_conllu(path: Path) -> ParsedFile:
    """Parse one CoNLL-U file verbatim (UD Perseus, UD PROIEL, UD PTNK).

    Every token row (including multiword ranges ``2-3`` and empty nodes ``4.1``) is kept with its
    ten columns as written. Comment lines are kept verbatim per sentence; ``# sent_id`` gives the
    upstream sentence id and the last ``# newdoc id`` the document id. A UTF-8 BOM and CRLF line
    ends are accepted.

    A sentence with a malformed row (not ten tab-separated columns, an ID that is not an
    integer/range/decimal, a HEAD that is neither ``_`` nor an integer, a HEAD outside the
    sentence, a sentence without token rows) is rejected whole: one reject naming the line and
    the problem; the rest of the file still loads.

    Args:
        path: the .conllu file.

    Returns:
        ParsedFile (``n_sentences_expected`` = number of non-empty blank-line-separated blocks).
    """
    data = path.read_bytes()
    pf = ParsedFile(path=path, sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    text = data.decode("utf-8-sig")
    lines = text.splitlines()
    document_id: str | None = None
    block: list[tuple[int, str]] = []
    pos = 0

    def flush() -> None:
        nonlocal pos, document_id
        if not block:
            return
        pos += 1
        comments = [ln for _, ln in block if ln.startswith("#")]
        sent_id = None
        for c in comments:
            key, _, value = c[1:].partition("=")
            key = key.strip()
            if key == "sent_id":
                sent_id = value.strip()
            elif key == "newdoc id":
                document_id = value.strip()
            elif key == "newdoc" and not value:
                document_id = None
        rows = [(n, ln) for n, ln in block if not ln.startswith("#")]
        problem = _check_conllu_rows(rows) if rows else (block[0][0], f"line {block[0][0]}: sentence has comments but no token rows")
        if problem is not None:
            bad_line, why = problem
            pf.reject(bad_line, pos, sent_id, why)
            return
        s, t = pf.sentences, pf.tokens
        for i, (n, ln) in enumerate(rows, start=1):
            cols = ln.split("\t")
            t["sentence_pos"].append(pos)
            t["token_pos"].append(i)
            t["line"].append(n)
            for name, value in zip(("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc"), cols):
                t[name].append(value)
            t["attrs"].append(None)
        s["sentence_pos"].append(pos)
        s["line"].append(block[0][0])
        s["upstream_sentence_id"].append(sent_id)
        s["document_id"].append(document_id)
        s["subdoc"].append(None)
        s["attrs"].append(None)
        s["comments"].append(comments)
        s["extra_xml"].append(None)
        s["n_tokens"].append(len(rows))

    for lineno, ln in enumerate(lines, start=1):
        if ln.strip() == "":
            flush()
            block = []
        else:
            block.append((lineno, ln))
    flush()
    pf.n_sentences_expected = pos
    return pf


def _check_conllu_rows(rows: list[tuple[int, str]]) -> tuple[int, str] | None:
    """First problem in a sentence's token rows as (line, message), or None when well formed."""
    n_words = 0
    for n, ln in rows:
        cols = ln.split("\t")
        if len(cols) != 10:
            return n, f"line {n}: expected 10 tab-separated columns, found {len(cols)}"
        if not _CONLLU_ID.match(cols[0]):
            return n, f"line {n}: ID {cols[0]!r} is not an integer, range or decimal"
        if cols[0].isdigit():
            n_words += 1
    for n, ln in rows:
        cols = ln.split("\t")
        if not cols[0].isdigit():
            continue
        head = cols[6]
        if head == "_":
            continue
        if not head.isdigit():
            return n, f"line {n}: HEAD {head!r} is not an integer"
        if int(head) > n_words:
            return n, f"line {n}: HEAD {head} is outside the sentence ({n_words} words)"
    return None
