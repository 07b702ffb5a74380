"""The AGDT-style XML parser (SPEC §2): AGDT, Gorman, Pedalion and Harrington files, verbatim, into
a :class:`sphragis.ingest.parsers.ParsedFile` (row shapes in :mod:`sphragis.ingest.parsers`).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from lxml import etree

from sphragis.config import MAX_SOURCE_BYTES, MAX_TREE_DEPTH
from sphragis.files import read_regular

from . import xml_scan
from .parsers import C1_UTF8, CONTROL, ParsedFile, XmlWords, too_deep

#: lxml tag filters for a ``word`` and a ``sentence`` element in any namespace or none (the same
#: as :func:`_is_word` and :func:`_is_sentence`).
_WORD_TAG = "{*}word"
_SENTENCE_TAG = "{*}sentence"
#: The options of every parse of a file: the whole file, or one sentence of a malformed file.
_PARSER_OPTIONS = {"huge_tree": True, "remove_comments": False, "resolve_entities": False, "no_network": True}


def _localname(tag) -> str:
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _is_word(tag) -> bool:
    """True for a ``word`` element tag, namespaced or not (comments and PIs have non-str tags)."""
    return tag == "word" or (tag.__class__ is str and tag.endswith("}word"))


def _is_sentence(tag) -> bool:
    """True for a ``sentence`` element tag, namespaced or not."""
    return tag == "sentence" or (tag.__class__ is str and tag.endswith("}sentence"))


def _in_sentence(el) -> bool:
    """True if ``el`` is inside a ``sentence`` element."""
    for _ in el.iterancestors(_SENTENCE_TAG):
        return True
    return False


def parse_agdt_xml(path: Path) -> ParsedFile:
    """Parse one AGDT-style treebank XML file (AGDT, Gorman, Pedalion, Harrington).

    Accepts the projects' variants: single or double quoted attributes, any extra attributes on
    ``sentence``/``word`` (``ref``, ``sem``, ``cite``, ``gloss``, ``artificial``, ``insertion_id``...),
    namespaced roots and missing attributes, and any encoding the XML declaration (or a byte order
    mark) names (:func:`sphragis.ingest.xml_scan.utf8_document`). ``word`` attributes are kept
    verbatim in ``attrs``; ``id``/``form``/``lemma``/``postag``/``head``/``relation`` are also
    copied to the token columns (``postag`` → ``xpos``, ``relation`` → ``deprel``).

    Only ``sentence`` end events reach Python (lxml filters the rest in C); the sentence's
    ``word`` children are picked by lxml too (``iterchildren`` with a tag filter) and read once
    each, their attribute names and values into two flat lists (SPEC §13: the parse runs close to
    a bare ``iterparse``; no tuple per attribute, no dict per word). The preamble (element children of the root
    other than sentences: ``header``, ``annotator``, AGDT's ``body`` shell...) is serialized in
    document order; comments and processing instructions at root level are not kept. CR alone
    ends a line as LF does (line numbers as in any editor).

    The file's sentences and words are also counted from its bytes alone
    (:func:`sphragis.ingest.xml_scan.count_tags`): ``n_sentences_expected`` and ``n_words_expected``,
    which the loader checks against what was ingested and rejected.

    A problem of one sentence rejects that sentence (one reject naming the line and the problem,
    SPEC §2): a ``word`` inside another element of the sentence (``<group><word/></group>``) or
    inside another ``word`` (only words directly inside ``sentence`` are read), a ``sentence``
    inside a ``sentence`` (both, and any further nested ones, are rejected), a control character
    (category Cc, e.g. from ``&#x85;`` or ``&#9;``) in a sentence or word attribute value, a head
    chain deeper than :data:`MAX_TREE_DEPTH`. A ``word`` outside every ``sentence`` (between
    sentences, directly under the root, in the header) is rejected on its own, one reject a word.

    Args:
        path: the XML file (a regular file of at most :data:`MAX_SOURCE_BYTES` bytes).

    Raises:
        sphragis.files.InputFileError: ``path`` is not a regular file, or is too large.

    Returns:
        ParsedFile. A syntax error does not raise: one reject names the line and message of the
        first error the parser logged (an empty file: line 1), and the file is read again one
        sentence at a time (:func:`_read_alone`): every sentence that is well formed on its own
        is kept, wherever the error is, and each one that is not is rejected with its own error;
        the outcome does not depend on how the parser buffers its input. A file whose bytes do
        not decode in its declared encoding (or that names an unknown one) is rejected whole,
        each sentence and word with it.
    """
    raw = read_regular(path, MAX_SOURCE_BYTES)
    pf = ParsedFile(path=path, sha256=hashlib.sha256(raw).hexdigest(), bytes=len(raw))
    data, unreadable = xml_scan.utf8_document(raw)
    if b"\r" in data:  # CR alone ends a line too (libxml2 counts only LF); the parse is the same
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    pf.n_sentences_expected, pf.n_words_expected = xml_scan.count_tags(data)
    if unreadable is not None:
        pf.reject(unreadable[0], None, None, unreadable[1])
        _read_alone(pf, data, f"file is not read ({unreadable[1]})")
        return pf
    error = _read_whole(pf, data)
    if error is not None:
        line, msg = error
        pf = ParsedFile(path=path, sha256=pf.sha256, bytes=pf.bytes, n_sentences_expected=pf.n_sentences_expected,
                        n_words_expected=pf.n_words_expected)
        pf.reject(line, None, None, f"XML syntax error at line {line}: {msg}")
        _read_alone(pf, data)
    return pf


class _Reader:
    """Reads ``sentence`` elements into a :class:`ParsedFile`: the rules of one sentence, the same
    for the read of a whole file and the re-read of a malformed one a sentence at a time."""

    def __init__(self, pf: ParsedFile, data: bytes):
        self.pf = pf
        self.words = pf.xml_words = XmlWords()
        # a raw C0 byte is no XML (a syntax error): DEL, a C1 or a character reference may make
        # one (each test is one pass over the file; a single-byte one is several times faster: "#" first)
        self.may_hold_control = (b"#" in data and b"&#" in data) or b"\x7f" in data or C1_UTF8.search(data) is not None

    def sentence(self, el, pos: int, off: int = 0) -> int:
        """Read the sentence element ``el`` (complete, with any sentences nested in it) as sentence
        ``pos + 1`` of the file; ``off`` is added to lxml's line numbers. Returns the position
        of the last sentence read (``pos + 1``, more when sentences are nested)."""
        words = self.words
        line_append, n_attrs_append = words.line.append, words.n_attrs.append
        keys_extend, values_extend = words.keys.extend, words.values.extend
        n = 0
        holder = None  # the first word holding elements
        for child in el.iterchildren(_WORD_TAG):
            line_append(child.sourceline + off)
            keys = child.keys()
            keys_extend(keys)
            values_extend(child.values())  # same order as keys() (one attribute list)
            n_attrs_append(len(keys))
            if len(child) and holder is None:
                holder = child
            n += 1
        a = el.attrib
        problem = extra = None
        if len(el) != n or holder is not None:
            nested = list(el.iterdescendants(_SENTENCE_TAG))
            if nested:
                words.drop_last(n)
                return self._nested_sentences(el, nested, pos, off)
            problem = _nested_word(el, off)
            if len(el) != n:  # other children (elements, comments, PIs), in document order
                extra = [etree.tostring(child, encoding="unicode", with_tail=False)
                         for child in el if not _is_word(child.tag)]
        pos += 1
        if self.may_hold_control and problem is None:
            problem = _xml_control(el, words, n, off)
        if n > MAX_TREE_DEPTH and problem is None:
            problem = _xml_too_deep(words, n)
        if problem is not None:
            words.drop_last(n)
            self.pf.reject(problem[0], pos, a.get("id"), problem[1], sum(1 for _ in el.iter(_WORD_TAG)))
            return pos
        words.sentence_pos.extend([pos] * n)
        words.token_pos.extend(range(1, n + 1))
        s_cols = self.pf.sentences
        s_cols["sentence_pos"].append(pos)
        s_cols["line"].append(el.sourceline + off)
        s_cols["upstream_sentence_id"].append(a.get("id"))
        s_cols["document_id"].append(a.get("document_id"))
        s_cols["subdoc"].append(a.get("subdoc"))
        s_cols["attrs"].append(dict(a))
        s_cols["comments"].append(None)
        s_cols["extra_xml"].append(extra)
        s_cols["n_tokens"].append(n)
        return pos

    def _nested_sentences(self, el, nested: list, pos: int, off: int) -> int:
        """Reject ``el`` and the sentences ``nested`` in it (document order) as sentences
        ``pos + 1``...; each takes the words whose nearest sentence it is. Returns the last position."""
        for s in (el, *nested):
            pos += 1
            outer = next(s.iterancestors(_SENTENCE_TAG), None)
            inner, holder = (nested[0], el) if outer is None else (s, outer)
            line = inner.sourceline + off
            n_words = sum(1 for w in s.iter(_WORD_TAG) if next(w.iterancestors(_SENTENCE_TAG)) is s)
            self.pf.reject(line, pos, s.get("id"), f"line {line}: <sentence> inside <sentence> (line "
                           f"{holder.sourceline + off}): nested sentences are not read", n_words)
        return pos

    def stray_words(self, el) -> None:
        """Reject each ``word`` element in ``el`` (itself included): ``el`` is outside every sentence."""
        for w in el.iter(_WORD_TAG):
            reject_stray_word(self.pf, w.sourceline)

    def root_child(self, el) -> None:
        """A child of the root other than a sentence: into the preamble (serialized), its words
        rejected; a ``word`` there is rejected, not kept in the preamble. Comments and PIs are skipped."""
        if el.tag.__class__ is not str or _is_sentence(el.tag):
            return
        self.stray_words(el)
        if not _is_word(el.tag):
            self.pf.preamble.append(etree.tostring(el, encoding="unicode", with_tail=False))


def reject_stray_word(pf: ParsedFile, line: int) -> None:
    """Reject one ``word`` outside every sentence (one word of the file's account)."""
    pf.reject(line, None, None, f"line {line}: <word> outside any <sentence>: not read", 1)


def _read_whole(pf: ParsedFile, data: bytes) -> tuple[int, str] | None:
    """Read every sentence of ``data`` in one parse into ``pf`` (rows, rejects, root attributes,
    preamble); returns None, or (line, message) of the syntax error that stopped it."""
    reader = _Reader(pf, data)
    pos = 0
    root = None  # found from the first sentence (``iterparse.root`` is only set at the end)
    it = etree.iterparse(_BytesSource(data), events=("end",), tag=_SENTENCE_TAG, **_PARSER_OPTIONS)
    try:
        for _event, el in it:
            if _in_sentence(el):
                continue  # read with the sentence holding it
            pos = reader.sentence(el, pos)
            el.clear(keep_tail=True)
            parent = el.getparent()
            if root is None:
                root = el
                while (up := root.getparent()) is not None:
                    root = up
            if parent is not None:
                # The elements before this sentence are complete: read them. (Later siblings may
                # already be in the tree, partly parsed: stop at this sentence.)
                for c in parent:
                    if c is el:
                        break
                    if parent is root:
                        reader.root_child(c)
                    elif c.tag.__class__ is str and not _is_sentence(c.tag):
                        reader.stray_words(c)
                while el.getprevious() is not None:
                    del parent[0]
        if root is None:
            root = it.root
        if root is not None:
            pf.root_attrs = dict(root.attrib)
            for c in root:
                reader.root_child(c)
    except etree.XMLSyntaxError as exc:
        return _syntax_error_place(exc, it.error_log, data)
    return None


def _read_alone(pf: ParsedFile, data: bytes, unreadable: str | None = None) -> None:
    """Read a file the parser could not read whole, one sentence at a time, into ``pf``.

    Each sentence unit of the bytes (:func:`sphragis.ingest.xml_scan.sentence_units`: an
    outermost sentence element with what is nested in it) is parsed on its own, after the file's
    part before its first sentence (prolog, root start tag, header; or, when that part is
    malformed, the prolog and root start tag alone); a unit that parses is read as the whole-file
    parse reads it (:class:`_Reader`), one that does not is rejected with its own first error, its
    nested sentences with it. Words outside every unit are rejected one by one. The root's
    attributes and the preamble are read from the part before the first sentence
    (:func:`_root_and_preamble`). ``unreadable`` (the file cannot be decoded): every unit rejected
    with that reason, nothing parsed.
    """
    found = xml_scan.sentence_units(data)
    reader = _Reader(pf, data)
    head = error = None
    if unreadable is None:
        pf.root_attrs, pf.preamble = _root_and_preamble(data[:found.units[0].start] if found.units else data)
    if unreadable is None and found.units:
        head, error = _head(data, found)
        if error is not None:
            unreadable = f"file is malformed (XML syntax error at line {error[0]})"
    for u in found.units:
        if unreadable is not None:
            _reject_unit(pf, u, f"sentence not parsed: {unreadable}")
            continue
        h = head.count(b"\n") + 1  # the line where the unit starts in head + unit
        el, error = _parse_alone(head, data[u.start:u.end])
        if el is not None:
            reader.sentence(el, u.first, u.line - h)
            continue
        line, msg = error
        line = line if line < h else line + u.line - h
        msg = _LINE_IN_MESSAGE.sub(lambda m: f"line {int(m[1]) + (u.line - h if int(m[1]) >= h else 0)}", msg)
        _reject_unit(pf, u, f"sentence not parsed: XML syntax error at line {line}: {msg}")
    for line in found.stray_word_lines:
        reject_stray_word(pf, line)


#: libxml2's message for elements nested beyond its limit (2,048 levels with ``huge_tree``).
_TOO_DEEP = re.compile(r"Excessive depth in document: (\d+)")
#: A line number in a libxml2 message ("Premature end of data in tag sentence line 5").
_LINE_IN_MESSAGE = re.compile(r"\bline (\d+)")


def _reject_unit(pf: ParsedFile, u: xml_scan.Unit, reason: str) -> None:
    """Reject the sentences of unit ``u`` at the line of its start tag: the first with ``reason``
    and the unit's words, the ones nested in it as being inside it."""
    pf.reject(u.line, u.first + 1, None, reason, u.words)
    for k in range(1, u.count):
        pf.reject(u.line, u.first + 1 + k, None, f"sentence not parsed: inside the sentence at line {u.line}, "
                                                "which is not read", 0)


def _head(data: bytes, found: xml_scan.Units) -> tuple[bytes, tuple[int, str] | None]:
    """The bytes to parse before each sentence unit: the file up to its first sentence if that
    parses, else the prolog and root start tag alone; with the error of the last tried, or None."""
    first = found.units[0].start
    if not 0 < found.root_start_end <= first:  # a sentence is the root: the prolog alone
        return data[:first], None
    for head in (data[:first], data[:found.root_start_end]):
        parser = _pull_parser()
        try:
            parser.feed(head)
            parser.close()  # raises: the root is not closed
        except etree.XMLSyntaxError as exc:
            first_error = _first_error(exc)
            if first_error is not None and first_error.type_name == "ERR_TAG_NOT_FINISHED":
                return head, None  # only that: the head is well formed
            error = _syntax_error_place(exc, exc.error_log, head)
    return head, error


def _pull_parser(**options) -> etree.XMLPullParser:
    """A pull parser for a part of a file (:data:`_PARSER_OPTIONS`). lxml gives a pull parser's
    exception the thread's error log, not the parser's: it is cleared here, so that it holds
    this parse's errors only (a worker parses one file at a time)."""
    etree.clear_error_log()
    return etree.XMLPullParser(**options, **_PARSER_OPTIONS)


def _first_error(exc: etree.XMLSyntaxError):
    """The first error (not warning) in the log of ``exc``, or None."""
    return next((e for e in exc.error_log if e.level >= etree.ErrorLevels.ERROR), None)


def _parse_alone(head: bytes, unit: bytes):
    """(the unit's outermost sentence element, None), or (None, (line, message) of the first error),
    from parsing ``head + unit``; lines are those of ``head + unit``."""
    parser = _pull_parser(events=("end",), tag=_SENTENCE_TAG)
    try:
        parser.feed(head)
        parser.feed(unit)
        top = None
        for _event, el in parser.read_events():
            if not _in_sentence(el):
                top = el
        if top is not None:
            return top, None
        parser.close()  # the parser stopped, or the unit ends inside its sentence: raises, naming the place
    except etree.XMLSyntaxError as exc:
        return None, _syntax_error_place(exc, exc.error_log, head + unit)
    return None, (head.count(b"\n") + 1, "no sentence element")


def _syntax_error_place(exc: etree.XMLSyntaxError, log, data: bytes) -> tuple[int, str]:
    """(line, message) of the first error in the parser's ``log``: lxml's exception may name a
    later, derived error (an undefined entity on line 16 raises "no element found" at line 0); an
    empty file is said so, at line 1; libxml2's depth limit is said in plain words (its message
    suggests an option that is already on)."""
    if not data.strip():
        return 1, "file is empty" if not data else "file holds only white space"
    first = next((e for e in log if e.level >= etree.ErrorLevels.ERROR), None)
    if first is not None and first.line:
        if m := _TOO_DEEP.match(first.message):
            return first.line, f"elements nested more than {int(m[1]):,} deep (the XML parser's limit)"
        return first.line, first.message.strip()
    if exc.lineno:
        return exc.lineno, exc.msg
    return data.count(b"\n") + (not data.endswith(b"\n")), exc.msg  # at the end of the file


def _nested_word(sentence, off: int) -> tuple[int, str] | None:
    """(line, reason) for a ``word`` element below another element of ``sentence``
    (``<group><word/></group>``, or a word in a word), which the parser does not read as a token;
    None if there is none. ``off`` is added to lxml's line numbers."""
    for child in sentence:
        if isinstance(child.tag, str):
            inner = next(child.iterdescendants(_WORD_TAG), None)
            if inner is not None:
                line = inner.sourceline + off
                return line, (f"line {line}: <word> inside <{_localname(child.tag)}> (line {child.sourceline + off}): "
                              "only words directly inside <sentence> are read")
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


def _xml_control(sentence, words: XmlWords, n: int, off: int) -> tuple[int, str] | None:
    """(line, reason) for the first control character (category Cc) in the attribute values of
    ``sentence`` or of its last ``n`` words in ``words``; None if there is none. ``off`` is added
    to lxml's line numbers (the words' are already)."""
    for k, v in sentence.attrib.items():
        if m := CONTROL.search(v):
            line = sentence.sourceline + off
            return line, f"line {line}: control character U+{ord(m.group()):04X} in sentence @{k}"
    if not n:
        return None
    k_attrs = sum(words.n_attrs[-n:])
    if not CONTROL.search("".join(words.values[len(words.values) - k_attrs:])):
        return None
    end = len(words.values) - k_attrs
    for line, n_attrs in zip(words.line[-n:], words.n_attrs[-n:]):
        start, end = end, end + n_attrs
        for k, v in zip(words.keys[start:end], words.values[start:end]):
            if m := CONTROL.search(v):
                return line, f"line {line}: control character U+{ord(m.group()):04X} in word @{k}"
    return None


def _root_and_preamble(head: bytes) -> tuple[dict[str, str] | None, list[str]]:
    """Root attributes and preamble of a malformed file, from ``head``, its part before the first
    sentence: the root's attributes and its children other than words that are complete there,
    serialized as :func:`parse_agdt_xml` does. The parser is not closed (closing makes some lxml
    versions end the elements still open) and the events parsed before an error are read after it
    too, so the outcome does not depend on lxml's version or buffering."""
    parser = _pull_parser(events=("start", "end"))
    try:
        parser.feed(head)
    except etree.XMLSyntaxError:
        pass
    root, preamble = None, []
    for event, el in parser.read_events():
        if event == "start":
            root = el if root is None else root
        elif el.getparent() is root and root is not None and not _is_word(el.tag):
            preamble.append(etree.tostring(el, encoding="unicode", with_tail=False))
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
