"""Hostile input at ingest (SPEC §1, §2, §13): a problem of one sentence rejects that
sentence (``ingest_rejects``: file, line, reason) and the build goes on; per file, the sentences
counted by a scan independent of the parser equal ingested + rejected, or the build fails naming
the file; the files a build reads are the ones fetch unpacked.

One build (module fixture, ``--select int_published_tokens``) runs over the fixture cuts of
``tests/fixtures/sources`` laid out as the pinned snapshots (``test_atomic.tiny_sources``), with
one hostile copy of a fixture file per situation written beside them (each named ``zz-*``; the
sentence-level ones hold the fixture's sentences with sentence 2 made hostile). The tests of
sources verification fetch the same cuts from a mirror made of them.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import tarfile
from pathlib import Path

import duckdb
import pytest

from conftest import messages
from sphragis import build, cli, config, fetch
from sphragis.ingest import load, parsers
from test_atomic import FIXTURE_LAYOUT, FIXTURE_METADATA, FIXTURE_SOURCES, tiny_settings, use_settings

PERSEUS = "ud-perseus_grc_perseus-ud-test.conllu"
ACHAR = "pedalion_achar.xml"
LYSIAS = "gorman_Lysias 1 bu1.xml"


def _text(name: str) -> str:
    return (FIXTURE_SOURCES / name).read_text(encoding="utf-8")


def _blocks() -> list[list[str]]:
    """The UD Perseus cut's three sentences as lists of lines."""
    blocks = [b.split("\n") for b in _text(PERSEUS).rstrip("\n").split("\n\n")]
    assert len(blocks) == 3
    return blocks


def _rows(block: list[str]) -> list[int]:
    return [i for i, ln in enumerate(block) if not ln.startswith("#")]


def _conllu(blocks: list[list[str]]) -> tuple[str, list[int]]:
    """File text of ``blocks`` and the first line of each block."""
    lines, starts = [], []
    for b in blocks:
        starts.append(len(lines) + 1)
        lines += b + [""]
    return "\n".join(lines), starts


def _sentence_2(edit) -> tuple[str, int, str]:
    """The UD Perseus cut with sentence 2 changed by ``edit(block) -> (block, index of bad line,
    reason without the 'line N: ' prefix)``: (text, bad line number, reason)."""
    a, b, c = _blocks()
    b, bad, why = edit(list(b))
    text, starts = _conllu([a, b, c])
    line = starts[1] + bad
    return text, line, f"line {line}: {why}"


def _set(row: str, col: int, value: str) -> str:
    cols = row.split("\t")
    cols[col] = value
    return "\t".join(cols)


def nul_in_form(b):
    i = _rows(b)[1]
    form = b[i].split("\t")[1]
    b[i] = _set(b[i], 1, form[:1] + "\0" + form[1:])
    return b, i, "control character U+0000 in FORM"


def overlapping_ranges(b):
    r = _rows(b)
    w3, w4 = r[2], r[3]
    b.insert(w4, "4-5\tx\t_\t_\t_\t_\t_\t_\t_\t_")
    b.insert(w3, "3-4\tx\t_\t_\t_\t_\t_\t_\t_\t_")
    return b, w4 + 1, "multiword range 4-5 overlaps the range ending at word 4"


def range_3_3(b):
    w3 = _rows(b)[2]
    b.insert(w3, "3-3\tx\t_\t_\t_\t_\t_\t_\t_\t_")
    return b, w3, "multiword range 3-3 spans fewer than two words"


def deep_chain(b):
    """Sentence 2 becomes a chain of 1,102 words, each the head of the next."""
    comments = [ln for ln in b if ln.startswith("#") and not ln.startswith("# text")]
    form = b[_rows(b)[0]].split("\t")[1]
    rows = [f"{i}\t{form}\t{form}\tNOUN\tn-s---mn-\t_\t{i - 1}\t{'root' if i == 1 else 'nmod'}\t_\t_"
            for i in range(1, 1103)]
    return comments + rows, len(comments) + 1001, "head chain deeper than 1,000 tokens"


def duplicate_sent_id(b):
    first_id = next(ln for ln in _blocks()[0] if ln.startswith("# sent_id"))
    i = next(k for k, ln in enumerate(b) if ln.startswith("# sent_id"))
    b[i] = first_id
    return b, i, f"duplicate sent_id {first_id.split('= ')[1]!r} (first at line {1 + _blocks()[0].index(first_id)})"


#: file name (in the ud-perseus snapshot) → how its sentence 2 is made hostile
CONLLU_CASES = {"grc_perseus-ud-zz-nul.conllu": nul_in_form, "grc_perseus-ud-zz-overlap.conllu": overlapping_ranges,
                "grc_perseus-ud-zz-range33.conllu": range_3_3, "grc_perseus-ud-zz-deep.conllu": deep_chain,
                "grc_perseus-ud-zz-dupid.conllu": duplicate_sent_id}
BAD_BYTE_FILE = "grc_perseus-ud-zz-badbyte.conllu"
CR_FILE = "grc_perseus-ud-zz-cr.conllu"
#: a file name that is not UTF-8 (byte 0xff), as Python sees it
BAD_NAME = os.fsdecode(b"grc_perseus-ud-zz-\xff.conllu")


def bad_byte_conllu() -> tuple[bytes, int, str]:
    """The UD Perseus cut with byte 0xff in place of the second letter of sentence 2's second form."""
    text, line, _ = _sentence_2(lambda b: (b, _rows(b)[1], ""))
    lines = text.split("\n")
    row = lines[line - 1]
    col = row.index("\t") + 3  # 1-based column of the form's second character
    data = "\n".join(lines[: line - 1]).encode() + b"\n" + row[: col - 1].encode() + b"\xff" + (
        row[col:] + "\n" + "\n".join(lines[line:])).encode()
    return data, line, f"line {line}: invalid UTF-8 byte 0xff at column {col}"


def _xml_sentence_2(text: str) -> tuple[int, int]:
    """(offset, line) of sentence 2's start tag in an XML fixture text."""
    at = text.index("<sentence", text.index("</sentence>"))
    return at, text[:at].count("\n") + 1


def group_xml() -> tuple[str, int, str]:
    """achar.xml with sentence 2's second word wrapped in ``<group>``: (text, word line, reason)."""
    text = _text(ACHAR)
    s2, _ = _xml_sentence_2(text)
    w1 = text.index("<word", s2)
    w2 = text.index("<word", w1 + 1)
    end = text.index("/>", w2) + 2
    out = text[:w2] + "<group>" + text[w2:end] + "</group>" + text[end:]
    line = out[:w2].count("\n") + 1
    return out, line, (f"line {line}: <word> inside <group> (line {line}): only words directly inside "
                       "<sentence> are read")


def c1_xml() -> tuple[str, int, str]:
    """achar.xml with NEL (U+0085, a C1 control, as ``&#x85;``) inside sentence 2's first form."""
    text = _text(ACHAR)
    s2, _ = _xml_sentence_2(text)
    w1 = text.index("<word", s2)
    form = text.index("form=", w1) + len("form=") + 2
    return text[:form] + "&#x85;" + text[form:], text[:w1].count("\n") + 1, "control character U+0085 in word @form"


def deep_xml() -> tuple[str, int, str]:
    """achar.xml with sentence 2's words replaced by a chain of 1,102 words, one per line, each the
    head of the next: (text, line of word 1,002, reason)."""
    text = _text(ACHAR)
    s2, _ = _xml_sentence_2(text)
    body = text.index(">", s2) + 1
    end = text.index("</sentence>", s2)
    words = "".join(f'\n<word id="{i}" form="λόγος" lemma="λόγος" postag="n-s---mn-" head="{i - 1}" '
                    f'relation="{"PRED" if i == 1 else "ATR"}"/>' for i in range(1, 1103))
    line = text[:body].count("\n") + 1 + 1002
    return text[:body] + words + "\n" + text[end:], line, f"line {line}: head chain deeper than 1,000 tokens"


def namespaced_cut_xml() -> tuple[str, int, int]:
    """Lysias 1 with every element prefixed ``tb:``, cut inside sentence 2: (text, sentence 2's
    line, last line)."""
    text = re.sub(r"<(/?)(?=[A-Za-z])", r"<\1tb:", _text(LYSIAS))
    text = text.replace("<tb:treebank", '<tb:treebank xmlns:tb="urn:example:tb"', 1)
    s2 = text.index("<tb:sentence", text.index("</tb:sentence>"))
    line = text[:s2].count("\n") + 1
    w = text.index("<tb:word", text.index("<tb:word", s2) + 1)
    cut = text[: w + 20]
    return cut, line, cut.count("\n") + 1


def commented_xml() -> str:
    """Lysias 1 with a commented-out copy of its first sentence before the second."""
    text = _text(LYSIAS)
    s1 = text.index("<sentence")
    e1 = text.index("</sentence>") + len("</sentence>")
    return text[:e1] + "\n<!-- " + text[s1:e1].replace("-", "_") + " -->" + text[e1:]  # no "--" in a comment


def entity_xml() -> tuple[str, int]:
    """achar.xml with an undefined entity ``&foo;`` in sentence 2's first form: (text, its line)."""
    text = _text(ACHAR)
    s2, _ = _xml_sentence_2(text)
    w1 = text.index("<word", s2)
    form = text.index("form=", w1) + len("form=") + 1
    return text[:form] + "&foo;" + text[form:], text[:w1].count("\n") + 1


PEDALION = "pedalion"
GORMAN = "gorman"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """(settings, summary, read-only connection, expectations) of one build over the layout."""
    base = tmp_path_factory.mktemp("hostile_ingest")
    settings = tiny_settings(base)
    perseus = settings.data / "ud-perseus"
    expect: dict = {}
    for name, edit in CONLLU_CASES.items():
        text, line, reason = _sentence_2(edit)
        (perseus / name).write_text(text, encoding="utf-8")
        expect[name] = (line, reason)
    data, line, reason = bad_byte_conllu()
    (perseus / BAD_BYTE_FILE).write_bytes(data)
    expect[BAD_BYTE_FILE] = (line, reason)
    (perseus / CR_FILE).write_bytes(_text(PERSEUS).replace("\n", "\r").encode())
    (perseus / BAD_NAME).write_text(_text(PERSEUS), encoding="utf-8")
    xml = settings.data / PEDALION / "public" / "xml"
    text, line, reason = group_xml()
    (xml / "zz-group.xml").write_text(text, encoding="utf-8")
    expect["zz-group.xml"] = (line, reason)
    text, line, reason = c1_xml()
    (xml / "zz-c1.xml").write_text(text, encoding="utf-8")
    expect["zz-c1.xml"] = (line, f"line {line}: {reason}")
    text, line, reason = deep_xml()
    (xml / "zz-deep.xml").write_text(text, encoding="utf-8")
    expect["zz-deep.xml"] = (line, reason)
    text, line = entity_xml()
    (xml / "zz-entity.xml").write_text(text, encoding="utf-8")
    expect["zz-entity.xml"] = (line, _xml_sentence_2(_text(ACHAR))[1])
    (xml / "zz-empty.xml").write_bytes(b"")
    gorman = settings.data / GORMAN / "xml versions"
    text, s2_line, last = namespaced_cut_xml()
    (gorman / "zz-ns-cut.xml").write_text(text, encoding="utf-8")
    expect["zz-ns-cut.xml"] = (s2_line, last)
    (gorman / "zz-comment.xml").write_text(commented_xml(), encoding="utf-8")
    (gorman / "zz-cr.xml").write_bytes(_text(LYSIAS).replace("\n", "\r").encode())
    summary = build.build(settings, select=["int_published_tokens"])
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    yield {"settings": settings, "summary": summary, "con": con, "expect": expect}
    con.close()


def _rejects(con, path: str) -> list[tuple]:
    return con.execute("""select path, line, sentence_pos, reason from ingest_rejects where path = ?
                          order by coalesce(sentence_pos, 0), line""", [path]).fetchall()


def _account(con, path: str) -> tuple:
    return con.execute("select n_sentences_expected, n_sentences_ingested from raw_files where path = ?",
                       [path]).fetchone()


def _published(con, path: str) -> dict[int, str]:
    """sentence_pos → published text (forms of int_published_tokens joined by spaces)."""
    return dict(con.execute("""
        select s.sentence_pos, string_agg(p.form, ' ' order by p.i) from int_published_tokens p
        join raw_sentences s using (sentence_uid) join raw_files f using (file_id)
        where f.path = ? group by 1 order by 1""", [path]).fetchall())


def _same_sentences(con, path: str, fixture_path: str, positions: list[int]) -> None:
    """The sentences at ``positions`` of ``path`` are published exactly as those of the fixture."""
    got, ref = _published(con, path), _published(con, fixture_path)
    assert sorted(got) == positions
    assert [got[p] for p in positions] == [ref[p] for p in positions] and all(got.values())


def _sentence_2_rejected(hostile, name: str) -> None:
    con = hostile["con"]
    line, reason = hostile["expect"][name]
    assert _rejects(con, name) == [(name, line, 2, reason)]
    assert _account(con, name) == (3, 2)
    _same_sentences(con, name, "grc_perseus-ud-test.conllu", [1, 3])


def test_nul_in_a_conllu_form_rejects_the_sentence_and_never_reaches_published_text(hostile):
    _sentence_2_rejected(hostile, "grc_perseus-ud-zz-nul.conllu")
    con = hostile["con"]
    assert con.execute("select count(*) from raw_tokens where regexp_matches(form, '[\\x00-\\x1f\\x7f-\\x9f]')"
                       ).fetchone()[0] == 0
    assert con.execute("select count(*) from int_published_tokens where regexp_matches(form, '[\\x00-\\x1f\\x7f-\\x9f]')"
                       ).fetchone()[0] == 0


def test_invalid_utf8_byte_in_a_conllu_row_rejects_that_sentence_only(hostile):
    _sentence_2_rejected(hostile, BAD_BYTE_FILE)


def test_overlapping_multiword_ranges_reject_the_sentence(hostile):
    _sentence_2_rejected(hostile, "grc_perseus-ud-zz-overlap.conllu")


def test_range_3_3_rejects_the_sentence(hostile):
    _sentence_2_rejected(hostile, "grc_perseus-ud-zz-range33.conllu")


def test_head_chain_deeper_than_1000_rejects_the_sentence(hostile):
    _sentence_2_rejected(hostile, "grc_perseus-ud-zz-deep.conllu")


def test_duplicate_sent_id_in_one_file_rejects_the_later_sentence(hostile):
    _sentence_2_rejected(hostile, "grc_perseus-ud-zz-dupid.conllu")


def test_cr_only_line_ends_are_line_ends(hostile):
    con = hostile["con"]
    assert _rejects(con, CR_FILE) == []
    assert _account(con, CR_FILE) == (3, 3)
    _same_sentences(con, CR_FILE, "grc_perseus-ud-test.conllu", [1, 2, 3])
    lines = "select s.line from raw_sentences s join raw_files f using (file_id) where f.path = ? order by 1"
    assert con.execute(lines, [CR_FILE]).fetchall() == con.execute(lines, ["grc_perseus-ud-test.conllu"]).fetchall()


def test_file_name_with_invalid_utf8_is_ingested_under_an_escaped_name(hostile):
    con = hostile["con"]
    name = "grc_perseus-ud-zz-\\xff.conllu"
    assert _account(con, name) == (3, 3) and _rejects(con, name) == []
    _same_sentences(con, name, "grc_perseus-ud-test.conllu", [1, 2, 3])


def test_word_wrapped_in_another_element_rejects_the_sentence(hostile):
    con = hostile["con"]
    line, reason = hostile["expect"]["zz-group.xml"]
    assert _rejects(con, "public/xml/zz-group.xml") == [("public/xml/zz-group.xml", line, 2, reason)]
    assert _account(con, "public/xml/zz-group.xml") == (2, 1)
    _same_sentences(con, "public/xml/zz-group.xml", "public/xml/achar.xml", [1])


def test_c1_control_character_in_an_xml_form_rejects_the_sentence(hostile):
    con = hostile["con"]
    line, reason = hostile["expect"]["zz-c1.xml"]
    assert _rejects(con, "public/xml/zz-c1.xml") == [("public/xml/zz-c1.xml", line, 2, reason)]
    _same_sentences(con, "public/xml/zz-c1.xml", "public/xml/achar.xml", [1])


def test_xml_head_chain_deeper_than_1000_rejects_the_sentence(hostile):
    con = hostile["con"]
    line, reason = hostile["expect"]["zz-deep.xml"]
    assert _rejects(con, "public/xml/zz-deep.xml") == [("public/xml/zz-deep.xml", line, 2, reason)]
    _same_sentences(con, "public/xml/zz-deep.xml", "public/xml/achar.xml", [1])


def test_undefined_entity_is_reported_at_its_own_line(hostile):
    con = hostile["con"]
    line, s2_line = hostile["expect"]["zz-entity.xml"]
    path = "public/xml/zz-entity.xml"
    assert _rejects(con, path) == [
        (path, line, None, f"XML syntax error at line {line}: Entity 'foo' not defined"),
        (path, s2_line, 2, f"sentence not parsed: XML syntax error at line {line}: Entity 'foo' not defined")]


def test_empty_xml_file_is_rejected_at_line_1(hostile):
    path = "public/xml/zz-empty.xml"
    assert _rejects(hostile["con"], path) == [(path, 1, None, "XML syntax error at line 1: file is empty")]
    assert _account(hostile["con"], path) == (0, 0)


def test_namespace_prefixed_file_cut_in_sentence_2_rejects_sentence_2(hostile):
    con = hostile["con"]
    s2_line, last = hostile["expect"]["zz-ns-cut.xml"]
    path = "xml versions/zz-ns-cut.xml"
    got = _rejects(con, path)
    assert [r[1:3] for r in got] == [(last, None), (s2_line, 2)]
    assert got[0][3].startswith(f"XML syntax error at line {last}: ")
    assert got[1][3].startswith(f"sentence not parsed: XML syntax error at line {last}: ")
    assert _account(con, path) == (2, 1)
    _same_sentences(con, path, "xml versions/Lysias 1 bu1.xml", [1])


def test_commented_out_sentence_is_not_counted(hostile):
    con = hostile["con"]
    path = "xml versions/zz-comment.xml"
    assert _account(con, path) == (2, 2) and _rejects(con, path) == []
    _same_sentences(con, path, "xml versions/Lysias 1 bu1.xml", [1, 2])


def test_cr_only_xml_lines_are_counted(hostile):
    con = hostile["con"]
    q = """select s.sentence_pos, s.line, t.token_pos, t.line from raw_sentences s join raw_tokens t using (sentence_uid)
           join raw_files f using (file_id) where f.path = ? order by 1, 3"""
    assert con.execute(q, ["xml versions/zz-cr.xml"]).fetchall() == con.execute(q, ["xml versions/Lysias 1 bu1.xml"]).fetchall()
    assert _rejects(con, "xml versions/zz-cr.xml") == []


def test_every_file_accounts_for_its_sentences_and_the_summary_shows_totals(hostile):
    con = hostile["con"]
    rows = con.execute("""select f.path, f.n_sentences_expected, f.n_sentences_ingested,
                                 count(r.sentence_pos) from raw_files f left join ingest_rejects r using (file_id)
                          group by all""").fetchall()
    assert len(rows) == len(FIXTURE_LAYOUT) - len(FIXTURE_METADATA) + 16  # the treebank files, not the metadata
    assert all(expected == ingested + rejected for _, expected, ingested, rejected in rows)
    ud = hostile["summary"].ingest["ud_perseus"]
    assert (ud["files"], ud["counted"], ud["sentences"]) == (9, 27, 21)
    out = printed_summary(hostile["summary"])
    assert re.search(r"ud_perseus\W+9\W+27\W+21\W", out), out


def printed_summary(summary: build.BuildSummary) -> str:
    """What :func:`sphragis.build.print_summary` prints for ``summary`` (200 columns)."""
    out = io.StringIO()
    build.print_summary(summary, build.Console(file=out, width=200))
    return out.getvalue()


def lose_in_parse(monkeypatch, fmt: str, name: str, lose) -> None:
    """Make the ``fmt`` parser call ``lose(parsed_file)`` on the file named ``name``: a parser bug."""
    parse = load.PARSERS[fmt]

    def lossy(path: Path) -> parsers.ParsedFile:
        pf = parse(path)
        if path.name == name:
            lose(pf)
        return pf

    monkeypatch.setitem(load.PARSERS, fmt, lossy)


def test_a_sentence_lost_by_the_parser_fails_the_build_naming_the_file(tmp_path, monkeypatch):
    """A parser bug that drops a sentence is caught by the per-file account."""
    settings = tiny_settings(tmp_path)

    def lose_sentence_2(pf: parsers.ParsedFile) -> None:
        for col in pf.sentences.values():
            del col[1]
        keep = [i for i, p in enumerate(pf.tokens["sentence_pos"]) if p != 2]
        pf.tokens = {c: [v[i] for i in keep] for c, v in pf.tokens.items()}

    lose_in_parse(monkeypatch, "conllu", "grc_perseus-ud-test.conllu", lose_sentence_2)
    with pytest.raises(load.AccountError, match=re.escape(
            "ingest account of grc_perseus-ud-test.conllu does not hold: 3 sentences in the file, 2 ingested "
            "+ 0 rejected")):
        build.build(settings, select=["int_tokens"], workers=1)
    assert not settings.warehouse.exists()


# ---- sources verified against the fetch record


def _mirror(tmp_path: Path) -> tuple[list[dict], Path]:
    """Pins for the eight snapshots whose archives (in the returned mirror folder) hold the
    fixture cuts at their upstream paths (and Gorman's a second copy, ``zz-second.xml``)."""
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    files: dict[str, list[tuple[str, str]]] = {}
    for name, (snapshot, rel) in FIXTURE_LAYOUT.items():
        files.setdefault(snapshot, []).append((name, rel))
    files["gorman"].append((LYSIAS, "xml versions/zz-second.xml"))  # a snapshot with two treebank files
    pins = []
    for pin in config.snapshots():
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:xz") as tar:
            for name, rel in files[pin["name"]]:
                data = (FIXTURE_SOURCES / name).read_bytes()
                info = tarfile.TarInfo(rel)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        archive = mirror / f"{pin['name']}@test.tar.xz"
        archive.write_bytes(buf.getvalue())
        pins.append({**pin, "archive": archive.name, "sha256": hashlib.sha256(buf.getvalue()).hexdigest(),
                     "included_prefixes": sorted({rel.split("/")[0] if "/" in rel else rel for _, rel in files[pin["name"]]})})
    return pins, mirror


@pytest.fixture
def fetched(tmp_path, monkeypatch):
    """Settings whose sources were fetched (from a mirror of the fixture cuts) and built once."""
    pins, mirror = _mirror(tmp_path)
    monkeypatch.setattr(config, "snapshots", lambda: tuple(pins))
    settings = config.Settings(mirror=mirror, data=tmp_path / "data", warehouse=tmp_path / "warehouse.duckdb",
                               out=tmp_path / "sphragis")
    use_settings(monkeypatch, settings)
    fetch.fetch_all(settings, progress=False)
    summary = build.build(settings, select=["int_tokens"])
    assert summary.unverified == []
    return settings


def _refused(capsys, needle: str) -> str:
    assert cli.main(["build", "--select", "int_tokens"]) == 1
    err = messages(capsys.readouterr().err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert needle in err, err
    return err


def test_a_pinned_file_edited_after_fetch_is_refused_naming_it(fetched, capsys):
    path = fetched.data / "ud-perseus" / "grc_perseus-ud-test.conllu"
    path.write_text(path.read_text(encoding="utf-8").replace("ζῶσι", "ζῶσαι", 1), encoding="utf-8")
    before = hashlib.sha256(fetched.warehouse.read_bytes()).hexdigest()
    _refused(capsys, f"{path}: changed since fetch")
    err = _refused(capsys, "run `sphragis fetch --force ud-perseus` to restore the pinned file")
    assert err.startswith("sphragis build: error: sources differ from the fetched snapshots: ")
    assert hashlib.sha256(fetched.warehouse.read_bytes()).hexdigest() == before
    assert cli.main(["fetch", "--quiet", "--force", "ud-perseus"]) == 0  # the way out
    assert cli.main(["build", "--select", "int_tokens"]) == 0


def test_a_file_only_touched_after_fetch_is_hashed_again_and_accepted(fetched):
    path = fetched.data / "ud-perseus" / "grc_perseus-ud-test.conllu"
    os.utime(path, ns=(1, 1))
    summary = build.build(fetched, select=["int_tokens"])
    assert summary.up_to_date


def test_an_unpinned_file_appearing_after_fetch_is_refused(fetched, capsys):
    extra = fetched.data / "ud-perseus" / "grc_perseus-ud-zz-extra.conllu"
    extra.write_text(_text(PERSEUS), encoding="utf-8")
    _refused(capsys, f"{extra}: not in the pinned snapshot ud-perseus (appeared after fetch); remove it or run "
                     "`sphragis fetch --force ud-perseus`")


def test_a_pinned_file_deleted_after_fetch_is_refused(fetched, capsys):
    path = fetched.data / "gorman" / "xml versions" / "zz-second.xml"
    path.unlink()
    _refused(capsys, f"{path}: pinned file missing since fetch; run `sphragis fetch --force gorman`")


def test_a_snapshot_fetched_without_a_file_record_is_refused_until_fetched_again(fetched, capsys):
    marker = fetched.data / "harrington" / fetch.MARKER_NAME
    old = json.loads(marker.read_text(encoding="utf-8"))
    del old["file_sha256"]
    marker.write_text(json.dumps({**old, "version": 1}), encoding="utf-8")  # as sphragis wrote it before
    _refused(capsys, f"snapshot harrington at {fetched.data / 'harrington'} has no record of its files (unpacked by "
                     "an older sphragis); run `sphragis fetch` (it re-fetches such snapshots)")
    assert cli.main(["fetch", "--quiet"]) == 0
    assert cli.main(["build", "--select", "int_tokens"]) == 0


def test_sources_without_a_fetch_record_are_built_and_said_unverified(tmp_path):
    settings = tiny_settings(tmp_path)
    summary = build.build(settings, select=["int_tokens"])
    assert summary.unverified == ["agdt", "agdt-homer-v1.6", "gorman", "harrington", "papygreek", "pedalion",
                                  "ud-perseus", "ud-proiel", "ud-ptnk", "unesp"]
    out = io.StringIO()
    build.print_summary(summary, build.Console(file=out, width=300))
    assert "sources not verified (no fetch record: laid out by hand, not by `sphragis fetch`): agdt, " in out.getvalue()


def test_fetch_removes_what_an_interrupted_fetch_left(tmp_path, monkeypatch):
    pins, mirror = _mirror(tmp_path)
    pins = [p for p in pins if p["name"] == "harrington"]
    settings = config.Settings(mirror=mirror, data=tmp_path / "data", warehouse=tmp_path / "w.duckdb",
                               out=tmp_path / "out")
    left = [settings.data / ".harrington.tmp-x1y2", settings.data / ".harrington.git-abc", settings.data / "harrington.old-99"]
    for d in left:
        (d / "sub").mkdir(parents=True)
        (d / "sub" / "f.xml").write_text("partial")
    keep = settings.data / ".other.tmp-1"
    keep.mkdir()
    fetch.fetch_all(settings, snapshots=pins, progress=False)
    assert [d.exists() for d in left] == [False, False, False]
    assert keep.exists()  # not a pinned snapshot's: not ours to remove
    assert sorted(p.name for p in settings.data.iterdir()) == [".other.tmp-1", "harrington"]


def test_a_second_fetch_fails_fast_while_one_holds_the_lock(tmp_path):
    import fcntl

    pins, mirror = _mirror(tmp_path)
    settings = config.Settings(mirror=mirror, data=tmp_path / "data", warehouse=tmp_path / "w.duckdb",
                               out=tmp_path / "out")
    settings.data.mkdir()
    fd = os.open(settings.data, os.O_RDONLY | os.O_DIRECTORY)  # as a running fetch holds it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(fetch.FetchError, match=f"another fetch is running into {re.escape(str(settings.data))}; "):
            fetch.fetch_all(settings, snapshots=pins[:1], progress=False)
    finally:
        os.close(fd)
    assert list(settings.data.iterdir()) == []


# ---- what was parsed is what was verified


def _tampered(path: Path) -> tuple[bytes, bytes]:
    """(the pinned bytes of the UD Perseus cut at ``path``, the same with its first form changed)."""
    pinned = path.read_bytes()
    return pinned, pinned.replace("\tζῶσι\t".encode(), "\tζῶσαι\t".encode(), 1)


def _forms(settings: config.Settings, path: str) -> tuple[str, list[str]]:
    """(raw_files.sha256, the first three forms) of ``path`` in the warehouse."""
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        sha = con.execute("select sha256 from raw_files where path = ?", [path]).fetchone()[0]
        forms = [r[0] for r in con.execute("""select t.form from raw_tokens t join raw_sentences s using (sentence_uid)
                 join raw_files f using (file_id) where f.path = ? order by s.sentence_pos, t.token_pos limit 3""",
                                            [path]).fetchall()]
    finally:
        con.close()
    return sha, forms


def test_a_pinned_file_edited_while_the_build_reads_it_is_refused_naming_it(fetched):
    path = fetched.data / "ud-perseus" / "grc_perseus-ud-test.conllu"
    pinned, tampered = _tampered(path)
    before = hashlib.sha256(fetched.warehouse.read_bytes()).hexdigest()

    def edit_after_the_check(step: str) -> None:  # the sources were checked; the parse comes next
        if step == "ingest":
            path.write_bytes(tampered)

    with pytest.raises(fetch.SourcesChanged, match=re.escape(
            f"{path}: changed while the build read it (sha256 {hashlib.sha256(tampered).hexdigest()[:12]}…, pinned "
            f"{hashlib.sha256(pinned).hexdigest()[:12]}…); run `sphragis fetch --force ud-perseus` to restore")):
        build.build(fetched, select=["int_tokens"], full=True, on_step=edit_after_the_check)
    assert hashlib.sha256(fetched.warehouse.read_bytes()).hexdigest() == before  # not swapped in
    path.write_bytes(pinned)
    assert build.build(fetched, select=["int_tokens"]).up_to_date
    assert _forms(fetched, "grc_perseus-ud-test.conllu") == (hashlib.sha256(pinned).hexdigest(),
                                                             ["ζῶσι", "δὲ", "καὶ"])


def test_a_file_edited_while_the_build_reads_it_is_recorded_as_read_and_its_restore_noticed(tmp_path):
    """Without a fetch record the bytes parsed are the state: the edited file is what was built,
    and putting the earlier bytes back is a change the next build re-ingests."""
    settings = tiny_settings(tmp_path)
    path = settings.data / "ud-perseus" / "grc_perseus-ud-test.conllu"
    pinned, tampered = _tampered(path)
    build.build(settings, select=["int_tokens"], on_step=lambda step: step == "ingest" and path.write_bytes(tampered))
    assert _forms(settings, "grc_perseus-ud-test.conllu") == (hashlib.sha256(tampered).hexdigest(),
                                                              ["ζῶσαι", "δὲ", "καὶ"])
    path.write_bytes(pinned)
    again = build.build(settings, select=["int_tokens"])
    assert not again.up_to_date and not again.ingest_reused
    assert _forms(settings, "grc_perseus-ud-test.conllu") == (hashlib.sha256(pinned).hexdigest(),
                                                              ["ζῶσι", "δὲ", "καὶ"])


# ---- bounded input: regular files only, records of the wrong shape are no records


def test_a_fifo_or_a_device_among_the_treebank_files_is_refused_naming_it(tmp_path, monkeypatch, capsys):
    settings = tiny_settings(tmp_path)
    use_settings(monkeypatch, settings)
    fifo = settings.data / "ud-perseus" / "grc_perseus-ud-zz-fifo.conllu"
    os.mkfifo(fifo)
    assert cli.main(["build", "--select", "int_tokens"]) == 1
    err = messages(capsys.readouterr().err)
    assert err == f"sphragis build: error: {fifo}: a FIFO, not a regular file; only regular files are read\n"
    fifo.unlink()
    (settings.data / "ud-perseus" / "grc_perseus-ud-zz-zero.conllu").symlink_to("/dev/zero")
    assert cli.main(["build", "--select", "int_tokens"]) == 1
    assert "grc_perseus-ud-zz-zero.conllu: a character device, not a regular file" in capsys.readouterr().err
    assert not settings.warehouse.exists()


def test_a_treebank_file_over_the_size_limit_is_refused_stating_the_limit(monkeypatch):
    from sphragis.files import InputFileError
    from sphragis.ingest import agdt_xml

    assert agdt_xml.MAX_SOURCE_BYTES is config.MAX_SOURCE_BYTES
    building = (Path(__file__).resolve().parents[1] / "docs" / "building.md").read_text(encoding="utf-8")
    assert f"`sphragis.config.MAX_SOURCE_BYTES` ({config.MAX_SOURCE_BYTES >> 20} MiB;" in building
    monkeypatch.setattr(agdt_xml, "MAX_SOURCE_BYTES", 4096)
    path = FIXTURE_SOURCES / ACHAR
    with pytest.raises(InputFileError, match=re.escape(
            f"{path}: {path.stat().st_size:,} bytes, over the limit of 4,096 bytes for such a file")):
        agdt_xml.parse_agdt_xml(path)


def test_elements_nested_200000_deep_reject_the_sentence_naming_file_and_line(tmp_path):
    settings = tiny_settings(tmp_path)
    deep = settings.data / "pedalion" / "public" / "xml" / "zz-deep.xml"
    text = _text(ACHAR)
    s2 = text.index("<sentence", text.index("</sentence>"))
    at = text.index("<word", s2)
    deep.write_text(text[:at] + "<g>" * 200_000 + "</g>" * 200_000 + "\n" + text[at:], encoding="utf-8")
    build.build(settings, select=["int_tokens"])
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    line = text[:at].count("\n") + 1
    why = f"XML syntax error at line {line}: elements nested more than 2,048 deep (the XML parser's limit)"
    assert _rejects(con, "public/xml/zz-deep.xml") == [
        ("public/xml/zz-deep.xml", line, None, why), ("public/xml/zz-deep.xml", line - 1, 2, f"sentence not parsed: {why}")]
    assert _account(con, "public/xml/zz-deep.xml") == (2, 1)
    con.close()


@pytest.mark.parametrize("doc", ["[]", '"text"', "{{{key}: 7}}", "{{{key}: [{stamp}, 5]}}",
                                 "[" * 200_000 + "]" * 200_000],
                         ids=["list", "string", "entry-not-a-list", "digest-not-a-sha256", "nested-200000-deep"])
def test_a_sources_cache_of_the_wrong_shape_is_no_cache(tmp_path, monkeypatch, doc):
    from sphragis import ingest_state
    from sphragis.ingest.sources import SourceFile

    monkeypatch.setattr(ingest_state, "RACY_SECONDS", 0)
    src = tmp_path / "a.conllu"
    src.write_text("1\tlogos\n", encoding="utf-8")
    files = [SourceFile({"name": "fx"}, src, "a.conllu")]
    cache = tmp_path / "sources.json"
    honest = build.ingest_fingerprint(files)
    st = src.stat()
    stamp = ", ".join(str(v) for v in (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev))
    cache.write_text(doc.format(key=json.dumps(str(src)), stamp=stamp) if doc.startswith("{") else doc,
                     encoding="utf-8")
    assert build.ingest_fingerprint(files, cache) == honest
    assert json.loads(cache.read_text(encoding="utf-8")) == {str(src): [*json.loads(f"[{stamp}]"),
                                                                      hashlib.sha256(src.read_bytes()).hexdigest()]}


def test_a_build_over_a_sources_cache_that_is_a_fifo_or_a_list_goes_on(tmp_path, monkeypatch):
    import subprocess
    import sys

    from test_atomic import settings_env

    settings = tiny_settings(tmp_path)
    build.build(settings, select=["int_tokens"])
    cache = build.sources_cache_path(settings.warehouse)
    for make in (lambda: cache.write_text("[]", encoding="utf-8"), lambda: os.mkfifo(cache)):
        cache.unlink(missing_ok=True)
        make()
        proc = subprocess.run([sys.executable, "-m", "sphragis.cli", "build", "--select", "int_tokens"],
                              env=settings_env(settings), capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        assert "up to date" in proc.stderr
