"""What the parsers of the two upstream formats return (SPEC §2), and the rules both apply.

The parsers are :func:`sphragis.ingest.agdt_xml.parse_agdt_xml` (AGDT-style XML) and
:func:`sphragis.ingest.conllu_files.parse_conllu` (CoNLL-U); this module holds their common
record, the control-character rules and the depth limit (:func:`too_deep`).

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
* rejects: ``line``, ``sentence_pos``, ``upstream_sentence_id``, ``reason``, ``n_words`` (the words
  of the file the reject accounts for: a rejected sentence's, 1 for a word outside any sentence, 0
  for a problem of the whole file).

For XML files the token columns are materialized lazily: the parser keeps the words' attribute
names and values in flat lists (:class:`XmlWords`) and ``ParsedFile.tokens`` builds the lists above
on first access, while :func:`sphragis.ingest.load.to_arrow` turns the flat lists into Arrow directly (SPEC §13: the ingest
runs close to the raw parse floor).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from sphragis.config import MAX_TREE_DEPTH  # also int_tree_checks' depth (one home)

SENTENCE_COLUMNS = (
    "sentence_pos", "line", "upstream_sentence_id", "document_id", "subdoc",
    "attrs", "comments", "extra_xml", "n_tokens",
)
TOKEN_COLUMNS = (
    "sentence_pos", "token_pos", "line", "id", "form", "lemma", "upos", "xpos", "feats",
    "head", "deprel", "deps", "misc", "attrs",
)
REJECT_COLUMNS = ("line", "sentence_pos", "upstream_sentence_id", "reason", "n_words")

#: Control characters (Unicode category Cc: C0, DEL, C1) never reach a published string: a
#: sentence holding one in a token field or attribute is rejected (SPEC §2). Tab separates
#: CoNLL-U columns, so there it can only stand in a comment, where it is allowed.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
CONTROL_NOT_TAB = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
#: The C0 controls other than tab, LF and CR, and DEL, as bytes; and their complement (to delete).
_C0_AND_DEL = bytes(range(0x20)).translate(None, b"\t\n\r") + b"\x7f"
_NOT_C0_AND_DEL = bytes(b for b in range(256) if b not in _C0_AND_DEL)
#: A C1 control (U+0080-U+009F) in UTF-8.
C1_UTF8 = re.compile(rb"\xc2[\x80-\x9f]")


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
        n_words_expected: word count by the same kind of scan (XML ``word`` start tags; CoNLL-U
            token rows): tokens ingested + the ``n_words`` of the rejects must equal it.
        root_attrs: XML root attributes, verbatim and in order (None for CoNLL-U).
        preamble: serialized XML children of the root other than sentences.
        tokens: token columns (property; for XML built from ``xml_words`` on first access).
        xml_words: XML only: the words as parsed (:class:`XmlWords`), None for CoNLL-U.
    """

    path: Path
    sha256: str = ""
    bytes: int = 0
    n_sentences_expected: int = 0
    n_words_expected: int = 0
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

    def reject(self, line: int | None, sentence_pos: int | None, sent_id: str | None, reason: str,
               n_words: int = 0) -> None:
        """Record one rejected sentence (or word outside any sentence, or file-level problem) with
        the line it concerns and the number of the file's words it takes (module docstring)."""
        for k, v in zip(REJECT_COLUMNS, (line, sentence_pos, sent_id, reason, n_words)):
            self.rejects[k].append(v)

    @property
    def n_sentences(self) -> int:
        return len(self.sentences["sentence_pos"])


def may_hold_control(data: bytes) -> bool:
    """True if the bytes hold a C0 control other than tab, LF, CR, or DEL, or a UTF-8 C1 control:
    a quick test of the whole file (``bytes.translate``, several times faster than a regular
    expression class) before the exact one per sentence."""
    return bool(data.translate(None, _NOT_C0_AND_DEL)) or C1_UTF8.search(data) is not None


def is_uint(value: str) -> bool:
    """ASCII digits only (``str.isdigit`` also accepts ``²`` or Arabic-Indic digits, which ``int`` rejects)."""
    return value.isascii() and value.isdigit()


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
        if x is not None and is_uint(x):
            index.setdefault(int(x), i)
    parent: list[int | None] = []
    for i, h in enumerate(heads):
        j = index.get(int(h)) if h is not None and is_uint(h) and int(h) != 0 else None
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

