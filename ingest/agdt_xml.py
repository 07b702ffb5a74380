"""The AGDT-style XML parser (SPEC §2): AGDT, Gorman, Pedalion and Harrington files, verbatim, into
a :class:`sphragis.ingest.parsers.ParsedFile` (row shapes in :mod:`sphragis.ingest.parsers`).
"""

from __future__ import annotations

import bisect
import hashlib
import re
from pathlib import Path

from lxml import etree

from sphragis.config import MAX_TREE_DEPTH

from .parsers import C1_UTF8, CONTROL, ParsedFile, XmlWords, too_deep

#: A sentence start tag as a plain byte scan sees it, without (fast: a literal search) and with a
#: namespace prefix (``<tb:sentence``), and the regions where such text is no tag: comments and
#: CDATA sections. :func:`_sentence_tag_lines` counts the tags outside
#: them: the per-file sentence count that ingested + rejected must equal (SPEC §13), made
#: independently of the parser.
_SENTENCE_TAG = re.compile(rb"<sentence[\s>/]")
_PREFIXED_SENTENCE_TAG = re.compile(rb"<[A-Za-z_][\w.-]*:sentence[\s>/]")
_NOT_MARKUP = re.compile(rb"<!(?:--.*?--|\[CDATA\[.*?\]\])>", re.DOTALL)  # "<!" first: a fast literal search


def _localname(tag) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


#: lxml tag filter for a ``word`` element in any namespace or none (the same as :func:`_is_word`).
_WORD_TAG = "{*}word"


def _is_word(tag) -> bool:
    """True for a ``word`` element tag, namespaced or not (comments and PIs have non-str tags)."""
    return tag == "word" or (tag.__class__ is str and tag.endswith("}word"))


def parse_agdt_xml(path: Path, *, unpublished: frozenset[str] = frozenset()) -> ParsedFile:
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
        unpublished: word attributes no model publishes (a dialect's other annotated layer): a
            control character in them is kept verbatim, not a reason to reject the sentence.

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
    may_hold_control = (b"#" in data and b"&#" in data) or b"\x7f" in data or C1_UTF8.search(data) is not None
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
                problem = _xml_control(el, words, n, unpublished)
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


def _xml_control(sentence, words: XmlWords, n: int, unpublished: frozenset[str] = frozenset()) -> tuple[int, str] | None:
    """(line, reason) for the first control character (category Cc) in the attribute values of
    ``sentence`` or of its last ``n`` words in ``words`` (word attributes in ``unpublished`` left
    out); None if there is none."""
    for k, v in sentence.attrib.items():
        if m := CONTROL.search(v):
            return sentence.sourceline, f"line {sentence.sourceline}: control character U+{ord(m.group()):04X} in sentence @{k}"
    if not n:
        return None
    k_attrs = sum(words.n_attrs[-n:])
    if not CONTROL.search("".join(words.values[len(words.values) - k_attrs:])):
        return None
    end = len(words.values) - k_attrs
    for line, n_attrs in zip(words.line[-n:], words.n_attrs[-n:]):
        start, end = end, end + n_attrs
        for k, v in zip(words.keys[start:end], words.values[start:end]):
            if k not in unpublished and (m := CONTROL.search(v)):
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
