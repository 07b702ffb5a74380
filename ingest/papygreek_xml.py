"""The PapyGreek dialect of AGDT-style XML (registry format ``papygreek_xml``; SPEC §1.1, §2): the
same ``treebank``/``sentence``/``word`` files, read by :func:`sphragis.ingest.agdt_xml.parse_agdt_xml`
(every word attribute kept verbatim, the root's ``annotator``, ``document_meta`` and ``hand_meta``
elements in the preamble), where each ``word`` carries two annotated layers instead of one: the
diplomatic ``orig_form``/``lemma_orig``/``postag_orig``/``relation_orig``/``head_orig`` and the
editors' regularised ``form_reg``/``lemma_reg``/``postag_reg``/``relation_reg``/``head_reg``
(:func:`layers`, from the seed ``sql/seeds/layer_attributes.csv``), beside
``insertion_id``/``artificial`` (elliptic nodes), ``line_n`` and ``hand``.

On top of the XML parser's own checks, a sentence is rejected (one reject naming the file's line
and the word, SPEC §2, §13) when a word lacks an attribute of either layer, when a word has no
form in the published layer (the registry's ``published_layer``: the reading text the normalized
tables publish), or when a head of the published layer names no word of the sentence. Empty
lemmas, tags, relations and heads are annotation not yet done, not bad input: they are kept (the
models count them). The layer no project publishes is kept as written, heads naming no word and
control characters included (p.babatha.17 writes ``&#10;`` for an empty diplomatic annotation):
the layer variation reports it (``mart_layer_variation``).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from sphragis.config import format_layers, projects

from .agdt_xml import parse_agdt_xml
from .parsers import ParsedFile, XmlWords, is_uint

#: The registry format this module reads (sql/seeds/projects.csv ``format``).
FORMAT = "papygreek_xml"


@cache
def layers() -> dict[str, dict[str, str]]:
    """The annotated layers of a PapyGreek word: layer → {field: attribute} (form, lemma, postag,
    relation, head), from the seed ``sql/seeds/layer_attributes.csv``
    (:func:`sphragis.config.format_layers`)."""
    return format_layers(FORMAT)


@cache
def published_layers() -> tuple[str, ...]:
    """The layers the registry publishes for a project of this format (``published_layer``, e.g.
    ``reg``): the layers whose forms and heads are checked; the others are never published."""
    return tuple(sorted({p["published_layer"] for p in projects() if p["format"] == FORMAT}))


def unpublished_attributes() -> frozenset[str]:
    """The attributes of the layers no registered project publishes (a control character there is
    kept verbatim, :func:`sphragis.ingest.agdt_xml.parse_agdt_xml`)."""
    return frozenset(a for layer, fields in layers().items() if layer not in published_layers()
                     for a in fields.values())


def parse_papygreek_xml(path: Path) -> ParsedFile:
    """Parse one PapyGreek treebank file: :func:`parse_agdt_xml`, then the dialect's checks (module
    docstring), each failing sentence moved to the rejects.

    Args:
        path: the XML file.

    Returns:
        ParsedFile: as :func:`parse_agdt_xml` (``xml_words`` holding the words of the sentences
        kept); ingested + rejected still equals the sentences and the words counted in the file.
    """
    pf = parse_agdt_xml(path, unpublished=unpublished_attributes())
    problems = layer_problems(pf.xml_words)
    if problems:
        _reject_sentences(pf, problems)
    return pf


def layer_problems(words: XmlWords) -> dict[int, tuple[int, str]]:
    """``sentence_pos`` → (line, reason) of the first problem of each sentence of ``words`` whose
    words break the dialect's rules (module docstring); sentences in file order."""
    problems: dict[int, tuple[int, str]] = {}
    published = [layers()[layer] for layer in published_layers()]
    end = 0
    sentence: list[tuple[int, dict[str, str]]] = []  # (line, attributes) of the current sentence's words

    def check(pos: int) -> None:
        ids = {a.get("id") for _, a in sentence}
        for line, a in sentence:
            for layer, fields in layers().items():
                absent = [n for n in fields.values() if n not in a]
                if absent:
                    problems[pos] = (line, f"line {line}: word @id={a.get('id')!r} lacks the {layer} layer's "
                                           f"{', '.join('@' + n for n in absent)}")
                    return
            for fields in published:
                if not a[fields["form"]].strip():
                    problems[pos] = (line, f"line {line}: word @id={a.get('id')!r} has no form in the published "
                                           f"layer (@{fields['form']} empty)")
                    return
                head = a[fields["head"]].strip()
                if head and head != "0" and not (is_uint(head) and head in ids):
                    problems[pos] = (line, f"line {line}: word @id={a.get('id')!r}: @{fields['head']}={head!r} "
                                           "names no word of the sentence")
                    return

    current = None
    for i, n_attrs in enumerate(words.n_attrs):
        start, end = end, end + n_attrs
        pos = words.sentence_pos[i]
        if pos != current:
            if sentence:
                check(current)
            current, sentence = pos, []
        sentence.append((words.line[i], dict(zip(words.keys[start:end], words.values[start:end]))))
    if sentence:
        check(current)
    return problems


def _reject_sentences(pf: ParsedFile, problems: dict[int, tuple[int, str]]) -> None:
    """Move the sentences ``problems`` names (``sentence_pos`` → (line, reason)) from the parsed
    rows of ``pf`` to its rejects, keeping every other row as it was."""
    s = pf.sentences
    keep = [i for i, pos in enumerate(s["sentence_pos"]) if pos not in problems]
    for i, pos in enumerate(s["sentence_pos"]):
        if pos in problems:  # the sentence's words go with it (the file's word account)
            pf.reject(problems[pos][0], pos, s["upstream_sentence_id"][i], problems[pos][1], s["n_tokens"][i])
    for column, values in s.items():
        s[column] = [values[i] for i in keep]
    old, new = pf.xml_words, XmlWords()
    end = 0
    for i, n_attrs in enumerate(old.n_attrs):
        start, end = end, end + n_attrs
        if old.sentence_pos[i] in problems:
            continue
        new.sentence_pos.append(old.sentence_pos[i])
        new.token_pos.append(old.token_pos[i])
        new.line.append(old.line[i])
        new.n_attrs.append(n_attrs)
        new.keys.extend(old.keys[start:end])
        new.values.extend(old.values[start:end])
    pf.xml_words = new
