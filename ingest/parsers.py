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

import bisect
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from sphragis.config import MAX_TREE_DEPTH  # also int_tree_checks' depth (one home)

from .sources import BAD_BYTE as _BAD_BYTE
from .sources import escape_bad_bytes

SENTENCE_COLUMNS = (
    "sentence_pos", "line", "upstream_sentence_id", "document_id", "subdoc",
    "attrs", "comments", "extra_xml", "n_tokens",
)
TOKEN_COLUMNS = (
    "sentence_pos", "token_pos", "line", "id", "form", "lemma", "upos", "xpos", "feats",
    "head", "deprel", "deps", "misc", "attrs",
)
REJECT_COLUMNS = ("line", "sentence_pos", "upstream_sentence_id", "reason")

#: A sentence start tag as a plain byte scan sees it, without (fast: a literal search) and with a
#: namespace prefix (``<tb:sentence``), and the regions where such text is no tag: comments and
#: CDATA sections. :func:`_sentence_tag_lines` counts the tags outside
#: them: the per-file sentence count that ingested + rejected must equal (SPEC §13), made
#: independently of the parser.
_SENTENCE_TAG = re.compile(rb"<sentence[\s>/]")
_PREFIXED_SENTENCE_TAG = re.compile(rb"<[A-Za-z_][\w.-]*:sentence[\s>/]")
_NOT_MARKUP = re.compile(rb"<!(?:--.*?--|\[CDATA\[.*?\]\])>", re.DOTALL)  # "<!" first: a fast literal search
_CONLLU_ID = re.compile(r"^(?:[1-9]\d*|[1-9]\d*-[1-9]\d*|\d+\.[1-9]\d*)$", re.ASCII)
#: Control characters (Unicode category Cc: C0, DEL, C1) never reach a published string: a
#: sentence holding one in a token field or attribute is rejected (SPEC §2). Tab separates
#: CoNLL-U columns, so there it can only stand in a comment, where it is allowed.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_NOT_TAB = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
#: The C0 controls other than tab, LF and CR, and DEL, as bytes; and their complement (to delete).
_C0_AND_DEL = bytes(range(0x20)).translate(None, b"\t\n\r") + b"\x7f"
_NOT_C0_AND_DEL = bytes(b for b in range(256) if b not in _C0_AND_DEL)
#: A C1 control (U+0080-U+009F) in UTF-8.
_C1_UTF8 = re.compile(rb"\xc2[\x80-\x9f]")
#: Line ends of any kind: CRLF, CR alone, LF (SPEC §2: "line ends of any kind are line ends").
_LINE_END = re.compile(r"\r\n?|\n")
CONLLU_COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")


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

    def drop_last(self, n: int) -> None:
        """Forget the last ``n`` words read (those of a rejected sentence, before their
        ``sentence_pos``/``token_pos`` are added)."""
        if n:
            k = sum(self.n_attrs[-n:])
            del self.line[-n:], self.n_attrs[-n:]
            if k:
                del self.keys[-k:], self.values[-k:]

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
        n_sentences_expected: sentence count by a plain scan independent of the parser (XML
            ``sentence`` start tags outside comments and CDATA, any namespace prefix; CoNLL-U
            blank-line-separated blocks): ingested + rejected must equal it (checked by the loader).
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
    document order; comments and processing instructions at root level are not kept. CR alone
    ends a line as LF does (line numbers as in any editor).

    A problem of one sentence rejects that sentence (one reject naming the line and the problem,
    SPEC §2): a ``word`` inside another element of the sentence (``<group><word/></group>``; only
    words directly inside ``sentence`` are read), a control character (category Cc, e.g. from
    ``&#x85;`` or ``&#9;``) in a sentence or word attribute value, a head chain deeper than
    :data:`MAX_TREE_DEPTH`.

    Args:
        path: the XML file.

    Returns:
        ParsedFile. A syntax error does not raise: the sentences before it are kept, one reject
        names the line and message of the first error the parser logged (an empty file: line 1),
        and every ``sentence`` start tag after the last parsed sentence gets its own reject (so
        ingested + rejected = expected).
    """
    data = path.read_bytes()
    pf = ParsedFile(path=path, sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    if b"\r" in data:  # CR alone ends a line too (libxml2 counts only LF); the parse is the same
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    tag_lines = _sentence_tag_lines(data)
    pf.n_sentences_expected = len(tag_lines)
    # a raw C0 byte is no XML (a syntax error): DEL, a C1 or a character reference may make one
    # (each test is one pass over the file; a single-byte one is several times faster: "#" first)
    may_hold_control = (b"#" in data and b"&#" in data) or b"\x7f" in data or _C1_UTF8.search(data) is not None
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
            a = el.attrib
            problem = None
            if len(el) != n:
                problem = _nested_word(el)
                # other children (elements, comments, PIs), in document order
                extra = [tostring(child, encoding="unicode", with_tail=False)
                         for child in el if not _is_word(child.tag)]
            else:
                extra = []
            if may_hold_control and problem is None:
                problem = _xml_control(el, words, n)
            if n > MAX_TREE_DEPTH and problem is None:
                problem = _xml_too_deep(words, n)
            if problem is not None:
                words.drop_last(n)
                pf.reject(problem[0], pos, a.get("id"), problem[1])
            else:
                w_sentence_pos.extend([pos] * n)
                w_token_pos.extend(range(1, n + 1))
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
        line, msg = _syntax_error_place(exc, it, data)
        pf.reject(line, None, None, f"XML syntax error at line {line}: {msg}")
        for i, tag_line in enumerate(tag_lines[pos:], start=pos + 1):
            pf.reject(tag_line, i, None, f"sentence not parsed: file is malformed (XML syntax error at line {line})")
        pf.root_attrs, pf.preamble = _root_and_preamble_until_error(data)
    return pf


def _syntax_error_place(exc: etree.XMLSyntaxError, it: etree.iterparse, data: bytes) -> tuple[int, str]:
    """(line, message) of the first error the parser logged: lxml's exception may name a later,
    derived error (an undefined entity on line 16 raises "no element found" at line 0); an empty
    file is said so, at line 1."""
    if not data.strip():
        return 1, "file is empty" if not data else "file holds only white space"
    first = next((e for e in it.error_log if e.level >= etree.ErrorLevels.ERROR), None)
    if first is not None and first.line:
        return first.line, first.message.strip()
    if exc.lineno:
        return exc.lineno, exc.msg
    return data.count(b"\n") + (not data.endswith(b"\n")), exc.msg  # at the end of the file


def _nested_word(sentence) -> tuple[int, str] | None:
    """(line, reason) for a ``word`` element below another element of ``sentence`` (e.g.
    ``<group><word/></group>``), which the parser does not read as a token; None if there is none."""
    for child in sentence:
        if isinstance(child.tag, str) and not _is_word(child.tag):
            inner = next(child.iter(_WORD_TAG), None)
            if inner is not None:
                return inner.sourceline, (f"line {inner.sourceline}: <word> inside <{_localname(child.tag)}> "
                                          f"(line {child.sourceline}): only words directly inside <sentence> are read")
    return None


def _xml_too_deep(words: XmlWords, n: int) -> tuple[int, str] | None:
    """(line, reason) if the last ``n`` words in ``words`` (one sentence) have a head chain deeper
    than :data:`MAX_TREE_DEPTH` (:func:`too_deep`); None otherwise."""
    end = len(words.values) - sum(words.n_attrs[-n:])
    ids, heads = [], []
    for n_attrs in words.n_attrs[-n:]:
        start, end = end, end + n_attrs
        attrs = dict(zip(words.keys[start:end], words.values[start:end]))
        ids.append(attrs.get("id"))
        heads.append(attrs.get("head"))
    deep = too_deep(ids, heads)
    if deep is None:
        return None
    line = words.line[len(words.line) - n + deep]
    return line, f"line {line}: head chain deeper than {MAX_TREE_DEPTH:,} tokens"


def _xml_control(sentence, words: XmlWords, n: int) -> tuple[int, str] | None:
    """(line, reason) for the first control character (category Cc) in the attribute values of
    ``sentence`` or of its last ``n`` words in ``words``; None if there is none."""
    for k, v in sentence.attrib.items():
        if m := _CONTROL.search(v):
            return sentence.sourceline, f"line {sentence.sourceline}: control character U+{ord(m.group()):04X} in sentence @{k}"
    if not n:
        return None
    k_attrs = sum(words.n_attrs[-n:])
    if not _CONTROL.search("".join(words.values[len(words.values) - k_attrs:])):
        return None
    end = len(words.values) - k_attrs
    for line, n_attrs in zip(words.line[-n:], words.n_attrs[-n:]):
        start, end = end, end + n_attrs
        for k, v in zip(words.keys[start:end], words.values[start:end]):
            if m := _CONTROL.search(v):
                return line, f"line {line}: control character U+{ord(m.group()):04X} in word @{k}"
    return None


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


def _may_hold_control(data: bytes) -> bool:
    """True if the bytes hold a C0 control other than tab, LF, CR, or DEL, or a UTF-8 C1 control:
    a quick test of the whole file (about 1 ms per 2 MB, against 6-12 for a regular expression
    class) before the exact one per sentence."""
    return bool(data.translate(None, _NOT_C0_AND_DEL)) or _C1_UTF8.search(data) is not None


def _sentence_tag_lines(data: bytes) -> list[int]:
    """1-based line numbers of every ``sentence`` start tag (any namespace prefix) found by a plain
    byte scan, outside comments and CDATA sections: the file's sentence count, as
    the format defines it, made without the XML parser (SPEC §13). ``data``: line ends are LF."""
    starts = [m.start() for m in _SENTENCE_TAG.finditer(data)]
    if b":sentence" in data:
        starts = sorted(starts + [m.start() for m in _PREFIXED_SENTENCE_TAG.finditer(data)])
    if starts:
        spans = [m.span() for m in _NOT_MARKUP.finditer(data)]
        if spans:
            ends = [b for _, b in spans]
            begins = [a for a, _ in spans]
            # a tag inside a span: the last span starting before it ends after it (spans are disjoint)
            starts = [p for p in starts if not ((i := bisect.bisect_right(begins, p) - 1) >= 0 and p < ends[i])]
    lines = []
    last, line = 0, 1
    for start in starts:
        line += data.count(b"\n", last, start)
        last = start
        lines.append(line)
    return lines


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
        path: the .conllu file.

    Returns:
        ParsedFile (``n_sentences_expected``: :func:`count_conllu_sentences`).
    """
    data = path.read_bytes()
    pf = ParsedFile(path=path, sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    text, bad_bytes = conllu_text(data)
    has_control = _may_hold_control(data)
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
        if not ln.strip(" \t"):
            flush()
            block = []
        else:
            block.append((lineno, ln))
    flush()
    pf.n_sentences_expected = count_conllu_sentences(text)
    return pf


def _is_uint(value: str) -> bool:
    """ASCII digits only (``str.isdigit`` also accepts ``²`` or Arabic-Indic digits, which ``int`` rejects)."""
    return value.isascii() and value.isdigit()


def _check_conllu_characters(block: list[tuple[int, str]]) -> tuple[int, str] | None:
    """First undecodable byte or control character in a sentence's lines, as (line, message)."""
    for n, ln in block:
        if m := _BAD_BYTE.search(ln):
            byte = ord(m.group()) - 0xDC00
            return n, f"line {n}: invalid UTF-8 byte 0x{byte:02x} at column {m.start() + 1}"
        if m := _CONTROL_NOT_TAB.search(ln):
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
        if _is_uint(cols[0]):
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
        if not _is_uint(cols[0]):
            continue
        head = cols[6]
        if head == "_":
            continue
        if not _is_uint(head):
            return n, f"line {n}: HEAD {head!r} is not an integer"
        if int(head) > n_words:
            return n, f"line {n}: HEAD {head} is outside the sentence ({n_words} words)"
    if n_words > MAX_TREE_DEPTH:
        words = [(n, cols) for n, cols in rows if _is_uint(cols[0])]
        deep = too_deep([c[0] for _, c in words], [c[6] for _, c in words])
        if deep is not None:
            n = words[deep][0]
            return n, f"line {n}: head chain deeper than {MAX_TREE_DEPTH:,} tokens"
    return None


def too_deep(ids: list[str | None], heads: list[str | None]) -> int | None:
    """Index of a token whose head chain is deeper than :data:`MAX_TREE_DEPTH`, or None.

    Tokens are given in document order by their verbatim ``ids`` and ``heads``. A head names the
    first token with that integer id; a head that is ``0``, not an integer, names no token or the
    token itself makes a tree top (depth 0). A cycle is broken at its member with the smallest
    position, which becomes a tree top: the repairs the tree models make (``int_tree_links``),
    so a sentence passing here is walked whole by ``int_tree_checks``. Linear in the tokens.
    """
    index: dict[int, int] = {}
    for i, x in enumerate(ids):
        if x is not None and _is_uint(x):
            index.setdefault(int(x), i)
    parent: list[int | None] = []
    for i, h in enumerate(heads):
        j = index.get(int(h)) if h is not None and _is_uint(h) and int(h) != 0 else None
        parent.append(None if j == i else j)
    depth: list[int | None] = [None] * len(parent)
    for i in range(len(parent)):
        while depth[i] is None:
            path, j = [], i
            while j is not None and depth[j] is None:
                depth[j] = -1  # on the current path
                path.append(j)
                j = parent[j]
            if j is not None and depth[j] == -1:  # a cycle: break it, walk again
                cycle = path[path.index(j):]
                parent[min(cycle)] = None
                for k in path:
                    depth[k] = None
                continue
            base = -1 if j is None else depth[j]
            for k in reversed(path):
                base += 1
                depth[k] = base
                if base > MAX_TREE_DEPTH:
                    return k
    return None
