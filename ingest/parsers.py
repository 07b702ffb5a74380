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

For XML files the token columns are materialized lazily: the parser keeps the words' attribute
names and values in flat lists (:class:`XmlWords`) and ``ParsedFile.tokens`` builds the lists above
on first access, while :func:`sphragis.ingest.load.to_arrow` turns the flat lists into Arrow directly (SPEC §13: the ingest
runs close to the raw parse floor).
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
_CONLLU_ID = re.compile(r"^(?:[1-9]\d*|[1-9]\d*-[1-9]\d*|\d+\.[1-9]\d*)$", re.ASCII)


@dataclass
class XmlWords:
    """The ``word`` elements of one XML file as parsed, before column materialization.

    Attributes (``sentence_pos``, ``token_pos``, ``line``, ``n_attrs``: parallel lists, one entry
    per word in document order; ``keys``, ``values``: one entry per attribute):
        sentence_pos: 1-based position of the word's sentence in the file.
        token_pos: 1-based position of the word in its sentence.
        line: source line of the ``word`` start tag.
        n_attrs: how many attributes the word has.
        keys, values: every word's attribute names and values, verbatim, word after word and in
            document order within a word (XML forbids repeated attribute names, so names are
            unique per word); flat, so they become Arrow arrays without a Python loop.
    """

    sentence_pos: list[int] = field(default_factory=list)
    token_pos: list[int] = field(default_factory=list)
    line: list[int] = field(default_factory=list)
    n_attrs: list[int] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)

    #: token column → XML attribute it copies (the rest of the CoNLL-U columns are None for XML).
    ATTRIBUTE_COLUMNS = (("id", "id"), ("form", "form"), ("lemma", "lemma"), ("xpos", "postag"),
                         ("head", "head"), ("deprel", "relation"))

    def columns(self) -> dict[str, list]:
        """The token columns of the module docstring (``attrs`` as dicts)."""
        dicts, end = [], 0
        for n in self.n_attrs:
            start, end = end, end + n
            dicts.append(dict(zip(self.keys[start:end], self.values[start:end])))
        cols: dict[str, list] = {"sentence_pos": self.sentence_pos, "token_pos": self.token_pos, "line": self.line}
        for col, attr in self.ATTRIBUTE_COLUMNS:
            cols[col] = [d.get(attr) for d in dicts]
        for col in ("upos", "feats", "deps", "misc"):
            cols[col] = [None] * len(dicts)
        cols["attrs"] = dicts
        return {c: cols[c] for c in TOKEN_COLUMNS}


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
        tokens: token columns (property; for XML built from ``xml_words`` on first access).
        xml_words: XML only: the words as parsed (:class:`XmlWords`), None for CoNLL-U.
    """

    path: Path
    sha256: str = ""
    bytes: int = 0
    n_sentences_expected: int = 0
    root_attrs: dict[str, str] | None = None
    preamble: list[str] = field(default_factory=list)
    sentences: dict[str, list] = field(default_factory=lambda: {c: [] for c in SENTENCE_COLUMNS})
    rejects: dict[str, list] = field(default_factory=lambda: {c: [] for c in REJECT_COLUMNS})
    xml_words: XmlWords | None = None
    _tokens: dict[str, list] | None = field(default=None, repr=False)

    @property
    def tokens(self) -> dict[str, list]:
        """Token columns (module docstring); XML files materialize them from ``xml_words`` once."""
        if self._tokens is None:
            self._tokens = self.xml_words.columns() if self.xml_words is not None else {c: [] for c in TOKEN_COLUMNS}
        return self._tokens

    @tokens.setter
    def tokens(self, value: dict[str, list]) -> None:
        self._tokens = value

    @property
    def tokens_materialized(self) -> bool:
        """True once ``tokens`` was built (or set); until then ``xml_words`` is the only copy."""
        return self._tokens is not None

    def reject(self, line: int | None, sentence_pos: int | None, sent_id: str | None, reason: str) -> None:
        """Record one rejected sentence (or file-level problem) with the line it concerns."""
        for k, v in zip(REJECT_COLUMNS, (line, sentence_pos, sent_id, reason)):
            self.rejects[k].append(v)

    @property
    def n_sentences(self) -> int:
        return len(self.sentences["sentence_pos"])


def _localname(tag) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


#: lxml tag filter for a ``word`` element in any namespace or none (the same as :func:`_is_word`).
_WORD_TAG = "{*}word"


def _is_word(tag) -> bool:
    """True for a ``word`` element tag, namespaced or not (comments and PIs have non-str tags)."""
    return tag == "word" or (tag.__class__ is str and tag.endswith("}word"))


def parse_agdt_xml(path: Path) -> ParsedFile:
    """Parse one AGDT-style treebank XML file (AGDT, Gorman, Pedalion, Harrington).

    Accepts the projects' variants: single or double quoted attributes, any extra attributes on
    ``sentence``/``word`` (``ref``, ``sem``, ``cite``, ``gloss``, ``artificial``, ``insertion_id``...),
    namespaced roots and missing attributes. ``word`` attributes are kept verbatim in ``attrs``;
    ``id``/``form``/``lemma``/``postag``/``head``/``relation`` are also copied to the token columns
    (``postag`` → ``xpos``, ``relation`` → ``deprel``).

    Only ``sentence`` end events reach Python (lxml filters the rest in C); the sentence's
    ``word`` children are picked by lxml too (``iterchildren`` with a tag filter) and read once
    each, their attribute names and values into two flat lists (SPEC §13: the parse runs close to
    a bare ``iterparse``; no tuple per attribute, no dict per word). The preamble (element children of the root
    other than sentences: ``header``, ``annotator``, AGDT's ``body`` shell...) is serialized in
    document order; comments and processing instructions at root level are not kept.

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
    s_cols = pf.sentences
    tostring = etree.tostring
    words = pf.xml_words = XmlWords()
    w_sentence_pos, w_token_pos = words.sentence_pos, words.token_pos
    line_append, n_attrs_append = words.line.append, words.n_attrs.append
    keys_extend, values_extend = words.keys.extend, words.values.extend
    pos = 0
    root = None  # found from the first sentence (``iterparse.root`` is only set at the end)
    it = etree.iterparse(
        _BytesSource(data), events=("end",), tag="{*}sentence", huge_tree=True, remove_comments=False,
        resolve_entities=False, no_network=True,
    )
    try:
        for _event, el in it:
            pos += 1
            n = 0
            for child in el.iterchildren(_WORD_TAG):
                line_append(child.sourceline)
                keys = child.keys()
                keys_extend(keys)
                values_extend(child.values())  # same order as keys() (one attribute list)
                n_attrs_append(len(keys))
                n += 1
            # other children (elements, comments, PIs), in document order, only when there are any
            extra = [tostring(child, encoding="unicode", with_tail=False)
                     for child in el if not _is_word(child.tag)] if len(el) != n else []
            w_sentence_pos.extend([pos] * n)
            w_token_pos.extend(range(1, n + 1))
            a = el.attrib
            s_cols["sentence_pos"].append(pos)
            s_cols["line"].append(el.sourceline)
            s_cols["upstream_sentence_id"].append(a.get("id"))
            s_cols["document_id"].append(a.get("document_id"))
            s_cols["subdoc"].append(a.get("subdoc"))
            s_cols["attrs"].append(dict(a))
            s_cols["comments"].append(None)
            s_cols["extra_xml"].append(extra or None)
            s_cols["n_tokens"].append(n)
            el.clear(keep_tail=True)
            parent = el.getparent()
            if root is None:
                root = el
                while (up := root.getparent()) is not None:
                    root = up
            if parent is not None:
                if parent is root:
                    # Root-level elements before this sentence are complete: keep them. (Later
                    # siblings may already be in the tree, partly parsed: stop at this sentence.)
                    for c in parent:
                        if c is el:
                            break
                        if isinstance(c.tag, str) and _localname(c.tag) != "sentence":
                            pf.preamble.append(tostring(c, encoding="unicode", with_tail=False))
                while el.getprevious() is not None:
                    del parent[0]
        if root is None:
            root = it.root
        if root is not None:
            pf.root_attrs = dict(root.attrib)
            pf.preamble.extend(tostring(c, encoding="unicode", with_tail=False)
                               for c in root if isinstance(c.tag, str) and _localname(c.tag) != "sentence")
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if exc.lineno else None
        pf.reject(line, None, None, f"XML syntax error at line {line}: {exc.msg}")
        for i, tag_line in enumerate(tag_lines[pos:], start=pos + 1):
            pf.reject(tag_line, i, None, f"sentence not parsed: file is malformed (XML syntax error at line {line})")
        pf.root_attrs, pf.preamble = _root_and_preamble_until_error(data)
    return pf


def _root_and_preamble_until_error(data: bytes) -> tuple[dict[str, str] | None, list[str]]:
    """Root attributes and the preamble of a malformed file: root-level elements completed
    before the syntax error, serialized as :func:`parse_agdt_xml` does (error path only)."""
    root, preamble = None, []
    try:
        for event, el in etree.iterparse(_BytesSource(data), events=("start", "end"), huge_tree=True,
                                         resolve_entities=False, no_network=True):
            if event == "start":
                if root is None:
                    root = el
                continue
            parent = el.getparent()
            if _localname(el.tag) == "sentence":
                el.clear(keep_tail=True)
                if parent is not None:
                    while el.getprevious() is not None:
                        del parent[0]
            elif parent is not None and parent is root:
                preamble.append(etree.tostring(el, encoding="unicode", with_tail=False))
    except etree.XMLSyntaxError:
        pass
    return (dict(root.attrib) if root is not None else None), preamble


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
    # Lines end at LF only (CRLF accepted), so line numbers are those of any editor; str.splitlines
    # would also break at U+2028, U+0085, form feeds... inside a field.
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    document_id: str | None = None
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
        rows = [(n, ln.split("\t")) for n, ln in block if not ln.startswith("#")]
        problem = _check_conllu_rows(rows) if rows else (block[0][0], f"line {block[0][0]}: sentence has comments but no token rows")
        if problem is not None:
            bad_line, why = problem
            pf.reject(bad_line, pos, sent_id, why)
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
        if ln.endswith("\r"):
            ln = ln[:-1]
        if ln.strip() == "":
            flush()
            block = []
        else:
            block.append((lineno, ln))
    flush()
    pf.n_sentences_expected = pos
    return pf


def _is_uint(value: str) -> bool:
    """ASCII digits only (``str.isdigit`` also accepts ``²`` or Arabic-Indic digits, which ``int`` rejects)."""
    return value.isascii() and value.isdigit()


def _check_conllu_rows(rows: list[tuple[int, list[str]]]) -> tuple[int, str] | None:
    """First problem in a sentence's token rows (line number, split columns) as (line, message),
    or None when well formed."""
    n_words = 0
    for n, cols in rows:
        if len(cols) != 10:
            return n, f"line {n}: expected 10 tab-separated columns, found {len(cols)}"
        if not _CONLLU_ID.match(cols[0]):
            return n, f"line {n}: ID {cols[0]!r} is not an integer, range or decimal"
        if _is_uint(cols[0]):
            n_words += 1
    for n, cols in rows:
        if not _is_uint(cols[0]):
            continue
        head = cols[6]
        if head == "_":
            continue
        if not _is_uint(head):
            return n, f"line {n}: HEAD {head!r} is not an integer"
        if int(head) > n_words:
            return n, f"line {n}: HEAD {head} is outside the sentence ({n_words} words)"
    return None
