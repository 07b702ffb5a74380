"""The byte-level view of an AGDT-style XML file, made without the XML parser (SPEC §2, §13).

* :func:`utf8_document`: the file's bytes as UTF-8, whatever encoding its XML declaration (or
  byte order mark) names, so that the scans below and the parser read the same bytes.
* :func:`count_tags`: the ``sentence`` and ``word`` start tags (any namespace prefix) outside
  comments, CDATA sections, the document type declaration and processing instructions: the
  per-file counts that ingested + rejected must equal.
* :func:`sentence_units`: where each sentence starts and ends, for re-reading a malformed file one
  sentence at a time (:mod:`sphragis.ingest.agdt_xml`), and the words outside every sentence.

Line ends are LF in the bytes given to the scans (the parser normalizes CR and CRLF first).
"""

from __future__ import annotations

import bisect
import codecs
import re
from dataclasses import dataclass

from .sources import BAD_BYTE

#: One pass over the file finds every ``sentence`` and ``word`` start tag (group 1 names it) and
#: steps over the regions where such text is no tag (group 1 empty): comments, CDATA sections,
#: the document type declaration (its internal subset), processing instructions. Only the tag's
#: name is consumed, so the scan never depends on the attributes being well formed.
_TAG_NAME = rb"(?:[A-Za-z_][\w.-]*:)?(sentence|word)(?=[\s>/])"
_NOT_MARKUP = rb"!--.*?-->|!\[CDATA\[.*?\]\]>|!DOCTYPE(?:[^\[>]|\[.*?\])*>|\?.*?\?>"
_TAGS = re.compile(rb"<(?:" + _NOT_MARKUP + rb"|" + _TAG_NAME + rb")", re.DOTALL)
#: The rest of a start tag after its name (quoted values may hold ``>``), and a sentence end tag.
_START_TAG_REST = re.compile(rb"(?:[^>\"']|\"[^\"]*\"|'[^']*')*>")
_SENTENCE_END_TAG = re.compile(rb"</(?:[A-Za-z_][\w.-]*:)?sentence\s*>")
#: The first element start tag (the root's), for a file whose prolog is all that can be trusted.
_ELEMENT_START = re.compile(rb"<[A-Za-z_]")


def count_tags(data: bytes) -> tuple[int, int]:
    """(sentence start tags, word start tags) in ``data``, outside comments, CDATA sections, the
    document type declaration and processing instructions: the file's sentence and word counts as
    the format defines them, made independently of the parser (SPEC §13)."""
    names = _TAGS.findall(data)
    return names.count(b"sentence"), names.count(b"word")


@dataclass
class Unit:
    """One sentence element as the bytes show it, with the sentences nested in it.

    Attributes:
        start, end: byte offsets of the sentence's start tag and the end of its end tag (the end of
            a ``<sentence .../>``); for a start tag never closed, ``end`` is where the next sentence
            starts (or the end of the file), and ``closed`` is False.
        first: 0-based index of the sentence among the file's sentence start tags.
        count: sentence start tags in the unit (1, or more when sentences are nested).
        words: word start tags in the unit.
        line: line of the start tag.
    """

    start: int
    end: int
    first: int
    count: int
    words: int
    line: int
    closed: bool


@dataclass
class Units:
    """:func:`sentence_units`' result: the units in document order; the lines of the word start
    tags outside every unit; the end of the root's start tag (0 when none is found)."""

    units: list[Unit]
    stray_word_lines: list[int]
    root_start_end: int


def sentence_units(data: bytes) -> Units:
    """Split ``data`` into sentence units (:class:`Unit`) by its tags alone, for a file the parser
    could not read whole. A sentence start tag is matched with the sentence end tag that closes
    it, nested ones included (a unit is an outermost sentence with everything inside it); a start
    tag never closed makes a unit that ends where the next sentence starts. The start tags are
    those :func:`count_tags` counts, so every sentence and word it counts is in exactly one unit or
    among the words outside them."""
    sentences, words, skipped = [], [], []
    for m in _TAGS.finditer(data):
        name = m.group(1)
        if name == b"sentence":
            sentences.append(m.start())
        elif name == b"word":
            words.append(m.start())
        else:
            skipped.append(m.span())
    closes = {}  # start offset -> end of its end tag
    events = []
    for i, s in enumerate(sentences):
        bound = sentences[i + 1] if i + 1 < len(sentences) else len(data)
        rest = _START_TAG_REST.match(data, data.index(b"sentence", s) + 8, bound)
        if rest is not None and data[rest.end() - 2:rest.end() - 1] == b"/":
            closes[s] = rest.end()
        else:
            events.append((s, 0, s))
    events.extend((m.start(), 1, m.end()) for m in _SENTENCE_END_TAG.finditer(data) if not _inside(skipped, m.start()))
    open_tags: list[int] = []
    for _, kind, at in sorted(events):
        if kind == 0:
            open_tags.append(at)
        elif open_tags:
            closes[open_tags.pop()] = at
    units: list[Unit] = []
    line, last = 1, 0
    for i, s in enumerate(sentences):
        if units and s < units[-1].end and units[-1].closed:
            units[-1].count += 1
            continue
        line += data.count(b"\n", last, s)
        last = s
        end = closes.get(s)
        closed = end is not None
        if not closed:
            end = sentences[i + 1] if i + 1 < len(sentences) else len(data)
        units.append(Unit(s, end, i, 1, 0, line, closed))
    starts = [u.start for u in units]
    stray = []
    for w in words:
        k = bisect.bisect_right(starts, w) - 1
        if k >= 0 and w < units[k].end:
            units[k].words += 1
        else:
            stray.append(w)
    root = next((m.start() for m in _ELEMENT_START.finditer(data) if not _inside(skipped, m.start())), None)
    rest = _START_TAG_REST.match(data, root + 1) if root is not None else None
    return Units(units, _lines(data, stray), rest.end() if rest else 0)


def _inside(spans: list[tuple[int, int]], at: int) -> bool:
    """True if offset ``at`` lies in one of ``spans`` (disjoint, sorted)."""
    i = bisect.bisect_right(spans, (at, 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= at < spans[i][1]


def _lines(data: bytes, offsets: list[int]) -> list[int]:
    """1-based line of each of ``offsets`` (sorted)."""
    out, line, last = [], 1, 0
    for at in offsets:
        line += data.count(b"\n", last, at)
        last = at
        out.append(line)
    return out


#: Byte order marks of the encodings whose bytes are not ASCII-compatible, and the XML spec's
#: signatures of a declaration in them without a mark (XML 1.0, appendix F).
_WIDE = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"), (b"\x00\x00\x00<", "utf-32-be"), (b"<\x00\x00\x00", "utf-32-le"),
         (b"\x00<\x00?", "utf-16-be"), (b"<\x00?\x00", "utf-16-le"))
#: The encoding an XML declaration names (group 3), in the bytes (after a UTF-8 mark) and in text.
_DECLARED_BYTES = re.compile(rb"""(?:\xef\xbb\xbf)?(<\?xml\s[^>]*?encoding\s*=\s*)(["'])([A-Za-z][\w.-]*)\2""")
_DECLARED = re.compile(r"""(<\?xml\s[^>]*?encoding\s*=\s*)(["'])([A-Za-z][\w.-]*)\2""")


def utf8_document(raw: bytes) -> tuple[bytes, tuple[int, str] | None]:
    """``raw`` (an XML file's bytes) as UTF-8, with a problem that stops it being read.

    The encoding is the one a byte order mark or the XML declaration names (XML 1.0, section
    4.3.3 and appendix F); UTF-8 (the usual case: returned as it is, at the cost of matching the
    declaration) and any encoding Python's codecs know are read; the declaration of a transcoded
    file then names UTF-8. A byte the declared encoding does not allow becomes the byte 0xFF,
    which is never UTF-8, so the parser rejects the one sentence holding it, at its line, as it
    does a bad byte of a UTF-8 file. Line breaks stay where they were: line numbers do not change.

    Returns:
        (UTF-8 bytes, None), or (the bytes decoded as far as possible, (line, reason)) when the
        encoding is unknown, 16- or 32-bit bytes do not decode, or the declaration names a 16- or
        32-bit encoding for 8-bit bytes: the file is then rejected with that reason (SPEC §2).
    """
    wide = next((codec for sig, codec in _WIDE if raw.startswith(sig)), None)
    if wide is None:
        m = _DECLARED_BYTES.match(raw)
        if m is None:
            return raw, None
        name = m.group(3).decode("ascii")
        try:
            codec = codecs.lookup(name).name
        except LookupError:
            return raw, (1, f"line 1: the XML declaration names encoding {name!r}, which is not known")
        if codec == "utf-8":
            return raw, None
        if codec.startswith(("utf-16", "utf-32")):
            return raw, (1, f"line 1: the XML declaration names encoding {name!r}, but the file's bytes are 8-bit")
    else:
        codec = wide
    try:
        text = raw.decode(codec, "surrogateescape")  # each byte it does not allow (0x80-0xFF) kept apart
    except UnicodeDecodeError as exc:  # one below 0x80: a 16- or 32-bit encoding's odd or bad unit
        text = raw.decode(codec, "replace")
        line = raw[:exc.start].decode(codec, "replace").count("\n") + 1
        return _declare_utf8(text), (line, f"line {line}: bytes that are not {codec} (the file's encoding): "
                                           f"{exc.reason} at byte {exc.start}")
    return _declare_utf8(text), None


def _declare_utf8(text: str) -> bytes:
    """``text`` as UTF-8 bytes, its XML declaration naming UTF-8 and any byte order mark dropped."""
    text = text.removeprefix("\ufeff")
    m = _DECLARED.match(text)
    if m is not None:
        text = text[:m.start(3)] + "UTF-8" + text[m.end(3):]
    return BAD_BYTE.sub("\udcff", text).encode("utf-8", "surrogateescape")
