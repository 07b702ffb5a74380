"""Hostile XML at ingest (SPEC §2, §13): every word of a file is ingested or rejected, and a
malformed file keeps every sentence that is well formed, whatever the XML parser's version.

The per-file account counts words as well as sentences (``word`` start tags counted from the
bytes, apart from the parser): a ``word`` inside a ``word``, a ``sentence`` inside a ``sentence``
and a ``word`` outside every sentence are rejects naming the line, never silently dropped; a file
in another encoding than UTF-8 is read (or rejected alone, with its reason), never a build abort;
after a syntax error each sentence is parsed on its own, so what is kept does not depend on how
lxml buffers its input (lxml 6.2 raised before handing over the sentences parsed with the error's
chunk; another lxml version is tried in a subprocess).

One build (module fixture, ``--select int_tokens``) runs over the fixture cuts of
``tests/fixtures/sources`` laid out as the pinned snapshots (``test_atomic.tiny_sources``), with one
hostile copy of a fixture file per situation beside them, each named ``zz-*``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import lxml
import pytest

from sphragis import build
from sphragis.ingest import agdt_xml, load, parsers
from test_atomic import FIXTURE_SOURCES, tiny_settings
from test_hostile_ingest import lose_in_parse, printed_summary

ACHAR = "public/xml/achar.xml"                           # Pedalion: two sentences under the root
THUCYDIDES = "v2.1/Greek/texts/tlg0003.tlg001.perseus-grc1.1.tb.xml"  # AGDT: three sentences in <body>


def _text(name: str) -> str:
    return (FIXTURE_SOURCES / name).read_text(encoding="utf-8")


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _starts(text: str, tag: str) -> list[int]:
    return [m.start() for m in re.finditer(f"<{tag}[ >/]", text)]


def word_in_word() -> tuple[str, int, int]:
    """achar.xml with sentence 2's second word moved inside its first: (text, inner line, outer line)."""
    text = _text("pedalion_achar.xml")
    w = [at for at in _starts(text, "word") if at > _starts(text, "sentence")[1]]
    end1, end2 = text.index("/>", w[0]), text.index("/>", w[1]) + 2
    out = text[:end1] + ">" + text[w[1]:end2] + "</word>" + text[end2:]
    return out, _line(out, out.index("<word", end1)), _line(out, w[0])


def nested_sentence() -> tuple[str, int, int]:
    """achar.xml with sentence 2 moved inside sentence 1, after its third word: (text, inner line,
    outer line)."""
    text = _text("pedalion_achar.xml")
    s1, s2 = _starts(text, "sentence")
    e2 = text.index("</sentence>", s2) + len("</sentence>")
    w3 = [at for at in _starts(text, "word") if at > s1][2]
    out = text[:w3] + text[s2:e2] + "\n" + text[w3:s2] + text[e2:]
    return out, _line(out, w3), _line(out, s1)


STRAY = '<word id="99" form="λόγος" lemma="λόγος" postag="n-s---mn-" head="0" relation="PRED"/>'


def word_under_root() -> tuple[str, int]:
    """achar.xml with a word directly under the root, between its two sentences: (text, its line)."""
    text = _text("pedalion_achar.xml")
    s2 = _starts(text, "sentence")[1]
    out = text[:s2] + STRAY + "\n" + text[s2:]
    return out, _line(out, s2)


def words_in_body() -> tuple[str, list[int]]:
    """The AGDT cut with a word in <body> between sentences 1 and 2 and one after sentence 3:
    (text, their lines)."""
    text = _text("agdt_tlg0003.tlg001.perseus-grc1.1.tb.xml")
    s2 = _starts(text, "sentence")[1]
    end = text.index("</body>")
    out = text[:s2] + STRAY + "\n    " + text[s2:end] + STRAY + "\n  " + text[end:]
    return out, [_line(out, m.start()) for m in re.finditer(re.escape(STRAY), out)]


def entity_in_sentence_2() -> tuple[str, int, int]:
    """The AGDT cut with an unescaped ``&`` in sentence 2's first form: (text, its line, the
    line of sentence 2's start tag)."""
    text = _text("agdt_tlg0003.tlg001.perseus-grc1.1.tb.xml")
    s2 = _starts(text, "sentence")[1]
    w = [at for at in _starts(text, "word") if at > s2][0]
    form = text.index('form="', w) + len('form="') + 1
    return text[:form] + "&" + text[form:], _line(text, w), _line(text, s2)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """(settings, summary, read-only connection, expectations) of one build over the layout."""
    settings = tiny_settings(tmp_path_factory.mktemp("hostile_xml"))
    pedalion = settings.data / "pedalion" / "public" / "xml"
    agdt = settings.data / "agdt" / "v2.1" / "Greek" / "texts"
    expect: dict = {}
    text, *expect["zz-word-in-word.xml"] = word_in_word()
    (pedalion / "zz-word-in-word.xml").write_text(text, encoding="utf-8")
    text, *expect["zz-nested.xml"] = nested_sentence()
    (pedalion / "zz-nested.xml").write_text(text, encoding="utf-8")
    text, expect["zz-root-word.xml"] = word_under_root()
    (pedalion / "zz-root-word.xml").write_text(text, encoding="utf-8")
    text, expect["zz-body-words.tb.xml"] = words_in_body()
    (agdt / "zz-body-words.tb.xml").write_text(text, encoding="utf-8")
    achar = _text("pedalion_achar.xml")
    (pedalion / "zz-utf16.xml").write_bytes(achar.replace('encoding="UTF-8"', 'encoding="UTF-16"').encode("utf-16"))
    (pedalion / "zz-unknown-encoding.xml").write_text(achar.replace('encoding="UTF-8"', 'encoding="x-no-such"'),
                                                      encoding="utf-8")
    text, *expect["zz-entity.tb.xml"] = entity_in_sentence_2()
    (agdt / "zz-entity.tb.xml").write_text(text, encoding="utf-8")
    summary = build.build(settings, select=["int_tokens"])
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    yield {"settings": settings, "summary": summary, "con": con, "expect": expect}
    con.close()


def _rejects(con, path: str) -> list[tuple]:
    return con.execute("""select line, sentence_pos, upstream_sentence_id, reason, n_words from ingest_rejects
                          where path = ? order by coalesce(sentence_pos, 0), line""", [path]).fetchall()


def _account(con, path: str) -> tuple:
    """(sentences in the file, ingested, words in the file, tokens ingested)."""
    return con.execute("""select n_sentences_expected, n_sentences_ingested, n_words_expected, n_tokens_ingested
                          from raw_files where path = ?""", [path]).fetchone()


def _rows(con, path: str) -> dict[int, list[tuple]]:
    """sentence_pos → the sentence's raw token rows (every column but the uid and the line)."""
    out: dict[int, list[tuple]] = {}
    for pos, *row in con.execute("""
            select s.sentence_pos, t.token_pos, t.id, t.form, t.lemma, t.xpos, t.head, t.deprel, t.attrs
            from raw_tokens t join raw_sentences s using (sentence_uid) join raw_files f using (file_id)
            where f.path = ? order by s.sentence_pos, t.token_pos""", [path]).fetchall():
        out.setdefault(pos, []).append(tuple(row))
    return out


def _same_rows(con, path: str, original: str, positions: list[int]) -> None:
    got, ref = _rows(con, path), _rows(con, original)
    assert sorted(got) == positions
    assert all(got[p] == ref[p] for p in positions)


def test_a_word_inside_a_word_rejects_its_sentence_naming_the_line(hostile):
    con, (inner, outer) = hostile["con"], hostile["expect"]["zz-word-in-word.xml"]
    path = "public/xml/zz-word-in-word.xml"
    assert _rejects(con, path) == [(inner, 2, "2", f"line {inner}: <word> inside <word> (line {outer}): only words "
                                    "directly inside <sentence> are read", 7)]
    assert _account(con, path) == (2, 1, 24, 17)
    _same_rows(con, path, ACHAR, [1])


def test_a_sentence_inside_a_sentence_rejects_both(hostile):
    con, (inner, outer) = hostile["con"], hostile["expect"]["zz-nested.xml"]
    path = "public/xml/zz-nested.xml"
    why = f"line {inner}: <sentence> inside <sentence> (line {outer}): nested sentences are not read"
    assert _rejects(con, path) == [(inner, 1, "1", why, 17), (inner, 2, "2", why, 7)]
    assert _account(con, path) == (2, 0, 24, 0)


def test_a_word_under_the_root_is_rejected_not_kept_as_preamble(hostile):
    con, line = hostile["con"], hostile["expect"]["zz-root-word.xml"]
    path = "public/xml/zz-root-word.xml"
    assert _rejects(con, path) == [(line, None, None, f"line {line}: <word> outside any <sentence>: not read", 1)]
    assert _account(con, path) == (2, 2, 25, 24)
    _same_rows(con, path, ACHAR, [1, 2])
    assert con.execute("select preamble from raw_files where path = ?", [path]).fetchone()[0] is None


def test_words_between_sentences_in_the_body_are_rejected_one_by_one(hostile):
    con, lines = hostile["con"], hostile["expect"]["zz-body-words.tb.xml"]
    path = "v2.1/Greek/texts/zz-body-words.tb.xml"
    assert _rejects(con, path) == [(n, None, None, f"line {n}: <word> outside any <sentence>: not read", 1)
                                   for n in lines]
    assert _account(con, path) == (3, 3, 124, 122)
    _same_rows(con, path, THUCYDIDES, [1, 2, 3])


def test_a_utf16_file_is_read_like_its_utf8_twin(hostile):
    con = hostile["con"]
    path = "public/xml/zz-utf16.xml"
    assert _rejects(con, path) == []
    assert _account(con, path) == (2, 2, 24, 24)
    _same_rows(con, path, ACHAR, [1, 2])
    lines = "select s.line, s.attrs from raw_sentences s join raw_files f using (file_id) where f.path = ? order by 1"
    assert con.execute(lines, [path]).fetchall() == con.execute(lines, [ACHAR]).fetchall()


def test_a_file_in_an_unknown_encoding_is_rejected_alone(hostile):
    con = hostile["con"]
    path = "public/xml/zz-unknown-encoding.xml"
    why = "line 1: the XML declaration names encoding 'x-no-such', which is not known"
    assert _rejects(con, path) == [(1, None, None, why, 0),
                                   (14, 1, None, f"sentence not parsed: file is not read ({why})", 17),
                                   (33, 2, None, f"sentence not parsed: file is not read ({why})", 7)]
    assert _account(con, path) == (2, 0, 24, 0)


def test_sentences_before_and_after_a_syntax_error_are_kept(hostile):
    con, (line, s2_line) = hostile["con"], hostile["expect"]["zz-entity.tb.xml"]
    path = "v2.1/Greek/texts/zz-entity.tb.xml"
    why = f"XML syntax error at line {line}: EntityRef: expecting ';'"
    # sentence 2 takes its 24 words; sentence 3, after the error, is kept too
    assert _rejects(con, path) == [(line, None, None, why, 0), (s2_line, 2, None, f"sentence not parsed: {why}", 24)]
    assert _account(con, path) == (3, 2, 122, 98)
    _same_rows(con, path, THUCYDIDES, [1, 3])
    assert con.execute("select len(preamble), root_attrs['version'] from raw_files where path = ?",
                       [path]).fetchone() == (1, "2.1")  # the <header> before the error


def test_every_word_is_accounted_for_and_the_summary_shows_word_totals(hostile):
    con = hostile["con"]
    rows = con.execute("""select f.path, f.n_words_expected, f.n_tokens_ingested, coalesce(sum(r.n_words), 0)
                          from raw_files f left join ingest_rejects r using (file_id) group by all""").fetchall()
    assert all(expected == ingested + rejected for _, expected, ingested, rejected in rows)
    pedalion = hostile["summary"].ingest["pedalion"]
    # achar (24 words) and its five copies: 24 + 24 + 24 + 25 + 24 + 24 in; 24 + 17 + 0 + 24 + 24 + 0 ingested
    assert (pedalion["words_counted"], pedalion["tokens"], pedalion["words_rejected"]) == (145, 89, 56)
    out = printed_summary(hostile["summary"])
    assert "words in files" in out and "words rejected" in out
    assert re.search(r"pedalion\W+6\W+12\W+7\W+145\W+89\W+7\W+56\W", out), out


def test_a_word_the_parser_drops_fails_the_build_naming_the_file(tmp_path, monkeypatch):
    """A parser bug that drops a word (the sentence kept) is caught by the per-file account."""
    settings = tiny_settings(tmp_path)

    def lose_word_1(pf: parsers.ParsedFile) -> None:
        pf.tokens = {c: v[1:] for c, v in pf.tokens.items()}

    lose_in_parse(monkeypatch, "agdt_xml", "achar.xml", lose_word_1)
    with pytest.raises(load.AccountError, match=re.escape(
            "ingest account of public/xml/achar.xml does not hold: 24 words in the file, 23 ingested + 0 rejected")):
        build.build(settings, select=["int_tokens"], workers=1)
    assert not settings.warehouse.exists()


# ---- a syntax error: the same sentences kept, however the parser buffers, at any lxml version


def many_sentences(n: int = 12_000, bad: int = 6_000) -> bytes:
    """``n`` two-word sentences, a byte that is not UTF-8 in the first form of sentence ``bad``."""
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<treebank format="aldt">\n<annotator><short>x</short></annotator>\n']
    for i in range(1, n + 1):
        parts.append(f'<sentence id="{i}">\n<word id="1" form="λόγος" head="0" relation="PRED"/>\n'
                     f'<word id="2" form="ὁ" head="1" relation="ATR"/>\n</sentence>\n')
    data = "".join(parts + ["</treebank>\n"]).encode()
    at = data.index(b'form="', data.index(f'<sentence id="{bad}"'.encode())) + len('form="') + 1
    return data[:at] + b"\xff" + data[at + 1:]


def _outcome(pf: parsers.ParsedFile) -> dict:
    """What a parse kept and rejected, as plain data."""
    return {"sentences": pf.sentences["upstream_sentence_id"], "lines": pf.sentences["line"],
            "tokens": pf.tokens["form"], "rejects": [list(r) for r in zip(*pf.rejects.values())],
            "root_attrs": pf.root_attrs, "preamble": pf.preamble}


def test_sentences_around_a_syntax_error_are_kept_whatever_the_parser_reads_at_once(tmp_path, monkeypatch):
    path = tmp_path / "many.xml"
    path.write_bytes(many_sentences())
    line = 6_000 * 4 + 1  # sentence 6,000's first word
    outcomes = []
    for most in (None, 1 << 16, 4096, 97):  # bytes the parser gets per read (None: what it asks for)
        read = agdt_xml._BytesSource.read
        monkeypatch.setattr(agdt_xml._BytesSource, "read",
                            lambda self, n=-1, read=read, most=most: read(self, n if most is None else min(n, most)))
        outcomes.append(_outcome(agdt_xml.parse_agdt_xml(path)))
    assert all(o == outcomes[0] for o in outcomes[1:])
    got = outcomes[0]
    assert got["sentences"] == [str(i) for i in range(1, 12_001) if i != 6_000]
    why = f"XML syntax error at line {line}: Invalid bytes in character encoding"
    assert got["rejects"] == [[line, None, None, why, 0], [line - 1, 6_000, None, f"sentence not parsed: {why}", 2]]
    assert (got["root_attrs"], got["preamble"]) == ({"format": "aldt"}, ["<annotator><short>x</short></annotator>"])


#: The lxml versions the recovery was checked at (the one installed and the other).
LXML_VERSIONS = ("6.1.3", "6.2.0")


@pytest.fixture(scope="session")
def other_lxml(tmp_path_factory) -> tuple[str, Path]:
    """(version, folder) of an lxml release other than the installed one, installed with pip into a
    folder of its own (from the package index pip is configured with); skips when pip cannot get it."""
    version = next(v for v in LXML_VERSIONS if v != lxml.__version__)
    target = tmp_path_factory.mktemp("lxml-" + version)
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
                           f"lxml=={version}"], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.skip(f"pip cannot install lxml {version} here (offline?): {proc.stderr.strip()[-300:]}")
    return version, target


PARSE_SCRIPT = """
import json, sys, lxml
from pathlib import Path
from sphragis.ingest.agdt_xml import parse_agdt_xml
sys.path.insert(0, sys.argv[1])
from test_hostile_xml import _outcome
print(json.dumps({"lxml": lxml.__version__,
                  "outcomes": [_outcome(parse_agdt_xml(Path(p))) for p in sys.argv[2:]]}))
"""


def test_the_same_sentences_are_kept_at_another_lxml_version(tmp_path, other_lxml):
    """lxml 6.2.0 raised before handing over the sentences parsed with the chunk holding an error
    (sentence 1 of a file with an error in sentence 2 was lost, and four sentences before the
    error at 6,000 of 12,000); 6.1.3 did not. The files are parsed in a subprocess that imports
    the other release first: the outcomes must be the same."""
    version, folder = other_lxml
    files = {"many.xml": many_sentences()}
    text, *_ = entity_in_sentence_2()
    files["entity.xml"] = text.encode()
    thucydides = _text("agdt_tlg0003.tlg001.perseus-grc1.1.tb.xml")
    files["cut.xml"] = thucydides[:thucydides.index("<word", _starts(thucydides, "sentence")[1]) + 40].encode()
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    paths = [str(tmp_path / name) for name in files]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", PARSE_SCRIPT, str(Path(__file__).parent), *paths],
                          capture_output=True, text=True, env=env, timeout=600, check=True)
    there = json.loads(proc.stdout)
    assert there["lxml"] == version != lxml.__version__
    here = [json.loads(json.dumps(_outcome(agdt_xml.parse_agdt_xml(Path(p))))) for p in paths]
    assert there["outcomes"] == here
    assert [len(o["sentences"]) for o in here] == [11_999, 2, 1]  # the error's sentence alone rejected


def test_a_file_in_an_8_bit_greek_encoding_is_read_and_an_ascii_one_keeps_its_ascii_sentences(tmp_path):
    """ISO-8859-7 (monotonic Greek) is transcoded; a byte that is not ASCII in a file declared ASCII
    rejects the sentence holding it, as any other byte the declared encoding does not allow."""
    text = ('<?xml version="1.0" encoding="{}"?>\n<treebank>\n<sentence id="1">\n<word id="1" form="{}"/>\n'
            '</sentence>\n<sentence id="2">\n<word id="1" form="{}"/>\n</sentence>\n</treebank>\n')
    greek = tmp_path / "greek.xml"
    greek.write_bytes(text.format("ISO-8859-7", "λόγος", "ἔργον".replace("ἔ", "έ")).encode("iso-8859-7"))
    pf = agdt_xml.parse_agdt_xml(greek)
    assert pf.tokens["form"] == ["λόγος", "έργον"] and not pf.rejects["reason"]
    ascii_ = tmp_path / "ascii.xml"
    ascii_.write_bytes(text.format("US-ASCII", "logos", "λόγος").encode("utf-8"))
    pf = agdt_xml.parse_agdt_xml(ascii_)
    assert pf.sentences["upstream_sentence_id"] == ["1"] and pf.tokens["form"] == ["logos"]
    assert pf.rejects["sentence_pos"] == [None, 2] and pf.rejects["line"] == [7, 6]
    assert pf.rejects["reason"][1].startswith("sentence not parsed: XML syntax error at line 7: ")
