"""Hostile input (SPEC §2, §13): bad files get a clear error or a recorded reject naming file and
line, the rest of the data is intact, and the CLI answers fatal errors with a message, not a
traceback.

The sources are the real fixture cuts of ``tests/fixtures/sources`` laid out as the eight pinned
snapshots (``test_atomic.tiny_sources``), with hostile variants written beside or over them:

* ``ud-perseus/grc_perseus-ud-test.conllu``: a UTF-8 BOM, then the fixture's three sentences
  and three more: one good, one with a 9-column row, one with HEAD ``x``, one with HEAD 99, one
  with comments only;
* ``gorman/xml versions/zz-truncated.xml``: the Gorman cut, truncated inside its second sentence;
* ``pedalion/public/xml/zz-bad-entity.xml``: the Pedalion cut with an unescaped ``&`` in the first
  word of sentence 2;
* ``pedalion/public/xml/zz-bom.xml``: the Pedalion cut with a UTF-8 BOM;
* ``harrington/.../grctb.6941.1.tb.xml``: the Harrington cut with one form (``Αἴσωπος``) in NFD
  in a sentence whose other forms are NFC.
"""

from __future__ import annotations

import io
import tarfile
import unicodedata
from pathlib import Path

import pytest

from conftest import messages
from sphragis import build, cli, config, runner
from test_atomic import FIXTURE_LAYOUT, FIXTURE_SOURCES, tiny_settings, use_settings

PERSEUS_PATH = "grc_perseus-ud-test.conllu"
TRUNCATED_PATH = "xml versions/zz-truncated.xml"
BAD_ENTITY_PATH = "public/xml/zz-bad-entity.xml"
BOM_XML_PATH = "public/xml/zz-bom.xml"
HARRINGTON_PATH = FIXTURE_LAYOUT["harrington_grctb.6941.1.tb.xml"][1]
NFD_FORM = unicodedata.normalize("NFD", "Αἴσωπος")


def _fixture(name: str) -> str:
    return (FIXTURE_SOURCES / name).read_text(encoding="utf-8")


def _set_column(row: str, col: int, value: str) -> str:
    cols = row.split("\t")
    cols[col] = value
    return "\t".join(cols)


def hostile_conllu() -> tuple[str, dict[int, tuple[int, str]]]:
    """The hostile UD Perseus file and, per rejected sentence position, (line, reason)."""
    blocks = [b.split("\n") for b in _fixture("ud-perseus_grc_perseus-ud-test.conllu").rstrip("\n").split("\n\n")]
    assert len(blocks) == 3

    def first_row(block):
        return next(i for i, ln in enumerate(block) if not ln.startswith("#"))

    a, b, c = blocks
    b9 = list(b)
    b9[first_row(b9) + 2] = "\t".join(b9[first_row(b9) + 2].split("\t")[:9])        # 9 columns
    c_x = [ln.replace("@", "@x-") if ln.startswith("# sent_id") else ln for ln in c]
    c_x[first_row(c_x)] = _set_column(c_x[first_row(c_x)], 6, "x")                    # HEAD x
    a_99 = [ln.replace("@", "@99-") if ln.startswith("# sent_id") else ln for ln in a if not ln.startswith("# newdoc")]
    a_99[first_row(a_99) + 1] = _set_column(a_99[first_row(a_99) + 1], 6, "99")      # HEAD 99
    empty = ["# sent_id = hostile-empty", "# text = only comments, no token rows"]   # empty sentence
    f = [ln.replace("@", "@good-") if ln.startswith("# sent_id") else ln for ln in c]
    out = [a, b, c, b9, c_x, a_99, empty, f]
    lines: list[str] = []
    starts = []
    for blk in out:
        starts.append(len(lines) + 1)
        lines += blk + [""]
    n_words_a = sum(1 for ln in a if ln.split("\t")[0].isdigit())
    expected = {
        4: (starts[3] + first_row(b9) + 2, "expected 10 tab-separated columns, found 9"),
        5: (starts[4] + first_row(c_x), "HEAD 'x' is not an integer"),
        6: (starts[5] + first_row(a_99) + 1, f"HEAD 99 is outside the sentence ({n_words_a} words)"),
        7: (starts[6], "sentence has comments but no token rows"),
    }
    return "\ufeff" + "\n".join(lines), expected


def truncated_xml() -> tuple[str, int, int]:
    """The Gorman cut truncated inside sentence 2: (text, line of sentence 2's tag, last line)."""
    text = _fixture("gorman_Lysias 1 bu1.xml")
    second = text.index("<sentence", text.index("</sentence>"))
    cut = text[: text.index("<word", text.index("<word", second) + 1) + 20]
    return cut, text[:second].count("\n") + 1, cut.count("\n") + 1


def bad_entity_xml() -> tuple[str, int, int]:
    """The Pedalion cut with ``&`` unescaped in sentence 2: (text, its line, sentence 2's tag line)."""
    text = _fixture("pedalion_achar.xml")
    second = text.index("<sentence", text.index("</sentence>"))
    word = text.index("<word", second)
    form = text.index("form=", word) + len("form=") + 1
    bad = text[:form] + "&" + text[form:]
    return bad, bad[:word].count("\n") + 1, text[:second].count("\n") + 1


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """(settings, BuildSummary, expectations) of one build over the hostile layout."""
    base = tmp_path_factory.mktemp("hostile")
    settings = tiny_settings(base)
    data = settings.data
    conllu, rejects = hostile_conllu()
    (data / "ud-perseus" / PERSEUS_PATH).write_text(conllu, encoding="utf-8")
    trunc, trunc_sentence_line, trunc_last_line = truncated_xml()
    (data / "gorman" / TRUNCATED_PATH).write_text(trunc, encoding="utf-8")
    bad, bad_line, bad_sentence_line = bad_entity_xml()
    (data / "pedalion" / BAD_ENTITY_PATH).write_text(bad, encoding="utf-8")
    (data / "pedalion" / BOM_XML_PATH).write_bytes(b"\xef\xbb\xbf" + (FIXTURE_SOURCES / "pedalion_achar.xml").read_bytes())
    harrington = data / "harrington" / HARRINGTON_PATH
    harrington.write_text(harrington.read_text(encoding="utf-8").replace('form="Αἴσωπος"', f'form="{NFD_FORM}"', 1),
                          encoding="utf-8")
    # int_tokens first: its key tests stop a raw-layer defect (e.g. tokens filed under the wrong
    # sentence) before the recursive tree models multiply duplicate rows.
    build.build(settings, select=["int_tokens"])
    summary = build.build(settings, select=["int_published_tokens"])
    import duckdb

    con = duckdb.connect(str(settings.warehouse), read_only=True)
    yield {"settings": settings, "summary": summary, "con": con, "conllu_rejects": rejects,
           "trunc": (trunc_sentence_line, trunc_last_line), "bad": (bad_line, bad_sentence_line)}
    con.close()


def _rejects(con, path: str) -> list[tuple]:
    return con.execute("""select line, sentence_pos, reason from ingest_rejects where path = ?
                          order by coalesce(sentence_pos, 0), line""", [path]).fetchall()


def _sentences(con, path: str) -> list[tuple]:
    return con.execute("""select s.sentence_pos, s.upstream_sentence_id, s.n_tokens from raw_sentences s
                          join raw_files f using (file_id) where f.path = ? order by s.sentence_pos""", [path]).fetchall()


def test_conllu_bad_rows_and_empty_sentence_are_rejected_with_line(hostile):
    con = hostile["con"]
    got = _rejects(con, PERSEUS_PATH)
    expected = hostile["conllu_rejects"]
    assert [(line, pos) for line, pos, _ in got] == [(line, pos) for pos, (line, _) in sorted(expected.items())]
    for (line, pos, reason), (_pos, (_line, why)) in zip(got, sorted(expected.items())):
        assert reason == f"line {line}: {why}"
    # the good sentences around them are all there, verbatim
    ids = [r[1] for r in _sentences(con, PERSEUS_PATH)]
    assert ids == ["tlg0008.tlg001.perseus-grc1.12.tb.xml@197", "tlg0008.tlg001.perseus-grc1.12.tb.xml@198",
                   "tlg0008.tlg001.perseus-grc1.12.tb.xml@199", "tlg0008.tlg001.perseus-grc1.12.tb.xml@good-199"]
    f = con.execute("select n_sentences_expected, n_sentences_ingested from raw_files where path = ?",
                    [PERSEUS_PATH]).fetchone()
    assert f == (8, 4)


def test_conllu_bom_is_stripped_and_first_sentence_kept(hostile):
    con = hostile["con"]
    comments, first_form = con.execute("""
        select s.comments, t.form from raw_sentences s join raw_files f using (file_id)
        join raw_tokens t using (sentence_uid)
        where f.path = ? and s.sentence_pos = 1 and t.token_pos = 1""", [PERSEUS_PATH]).fetchone()
    assert comments[0] == "# newdoc id = tlg0008.tlg001.perseus-grc1.12.tb.xml"
    assert first_form == "ζῶσι"


def test_truncated_xml_rejects_named_with_lines_and_keeps_sentence_1(hostile):
    con = hostile["con"]
    sentence_line, last_line = hostile["trunc"]
    got = _rejects(con, TRUNCATED_PATH)
    assert len(got) == 2
    (err_line, err_pos, err), (line2, pos2, why2) = got
    assert err_pos is None and err_line == last_line and err.startswith(f"XML syntax error at line {last_line}: ")
    assert (line2, pos2) == (sentence_line, 2) and why2.startswith(f"sentence not parsed: XML syntax error at line {last_line}: ")
    # sentence 1 is whole and identical to the same sentence of the intact file
    assert _sentences(con, TRUNCATED_PATH) == _sentences(con, "xml versions/Lysias 1 bu1.xml")[:1]
    tokens = """select t.token_pos, t.form, t.lemma, t.xpos, t.head, t.deprel, t.attrs from raw_tokens t
                join raw_sentences s using (sentence_uid) join raw_files f using (file_id)
                where f.path = ? and s.sentence_pos = 1 order by t.token_pos"""
    assert con.execute(tokens, [TRUNCATED_PATH]).fetchall() == con.execute(tokens, ["xml versions/Lysias 1 bu1.xml"]).fetchall()


def test_xml_syntax_error_mid_file_names_the_line(hostile):
    con = hostile["con"]
    bad_line, sentence_line = hostile["bad"]
    got = _rejects(con, BAD_ENTITY_PATH)
    assert got[0][0] == bad_line and got[0][2].startswith(f"XML syntax error at line {bad_line}: ")
    assert got[1:] == [(sentence_line, 2, f"sentence not parsed: XML syntax error at line {bad_line}: EntityRef: expecting ';'")]
    assert [r[0] for r in _sentences(con, BAD_ENTITY_PATH)] == [1]


def test_xml_bom_parses_like_the_file_without_it(hostile):
    con = hostile["con"]
    q = """select s.sentence_pos, t.token_pos, t.line, t.form, t.attrs from raw_tokens t join raw_sentences s
           using (sentence_uid) join raw_files f using (file_id) where f.path = ? order by 1, 2"""
    assert con.execute(q, [BOM_XML_PATH]).fetchall() == con.execute(q, ["public/xml/achar.xml"]).fetchall()
    assert not _rejects(con, BOM_XML_PATH)


def test_mixed_nfc_nfd_kept_verbatim_in_raw_and_normalized_when_published(hostile):
    con = hostile["con"]
    rows = con.execute("""
        select t.sentence_uid, t.token_pos, t.form, t.attrs['form'] from raw_tokens t join raw_sentences s
        using (sentence_uid) join raw_files f using (file_id)
        where f.path = ? and s.sentence_pos = 1 and t.token_pos in (1, 4) order by t.token_pos""",
                       [HARRINGTON_PATH]).fetchall()
    (uid, _, nfc_form, _), (_, _, raw_form, raw_attr) = rows
    assert nfc_form == "Ὁ" and unicodedata.is_normalized("NFC", nfc_form)  # the sentence mixes both
    assert raw_form == raw_attr == NFD_FORM and not unicodedata.is_normalized("NFC", raw_form)
    published = con.execute("select form from int_published_tokens where sentence_uid = ? and token_pos = 4",
                            [uid]).fetchone()[0]
    assert published == "αἴσωπος" and unicodedata.is_normalized("NFC", published)


def test_rest_of_the_data_is_intact_and_summary_counts_rejects(hostile):
    con = hostile["con"]
    per_file = dict(con.execute("select path, n_sentences_ingested from raw_files").fetchall())
    intact = {rel: n for rel, n in {
        FIXTURE_LAYOUT["agdt_tlg0003.tlg001.perseus-grc1.1.tb.xml"][1]: 3,
        FIXTURE_LAYOUT["agdt-homer_tlg0012.tlg001.perseus-grc1_1.tb.xml"][1]: 2,
        "xml versions/Lysias 1 bu1.xml": 2, "public/xml/achar.xml": 2, HARRINGTON_PATH: 2,
        "grc_proiel-ud-dev.conllu": 3, "grc_ptnk-ud-train.conllu": 3}.items()}
    for rel, n in intact.items():
        assert per_file[rel] == n, rel
    rejects = {p: v["rejects"] for p, v in hostile["summary"].ingest.items()}
    assert rejects == {"agdt": 0, "gorman": 2, "pedalion": 2, "harrington": 0, "ud_perseus": 4, "ud_proiel": 0,
                       "ud_ptnk": 0, "papygreek": 0, "unesp": 0}
    # every token is filed under its own sentence (rejected sentences leave gaps in sentence_pos)
    assert con.execute("""select count(*) from raw_sentences s
                          where n_tokens <> (select count(*) from raw_tokens t where t.sentence_uid = s.sentence_uid)
                       """).fetchone()[0] == 0
    last = con.execute("""select list(t.form order by t.token_pos) from raw_tokens t join raw_sentences s
                          using (sentence_uid) join raw_files f using (file_id)
                          where f.path = ? and s.upstream_sentence_id like '%@good-199'""", [PERSEUS_PATH]).fetchone()[0]
    fixture = _fixture("ud-perseus_grc_perseus-ud-test.conllu").rstrip("\n").split("\n\n")[2]
    assert last == [ln.split("\t")[1] for ln in fixture.split("\n") if not ln.startswith("#")]
    # every sentence of every file is either ingested or rejected
    for path, expected, ingested, rejected in con.execute("""
            select f.path, f.n_sentences_expected, f.n_sentences_ingested,
                   (select count(*) from ingest_rejects r where r.file_id = f.file_id and r.sentence_pos is not null)
            from raw_files f""").fetchall():
        assert ingested + rejected == expected, path


# ---- fatal errors: one clear message from the CLI, no traceback


def _one_error(capsys, command: str) -> str:
    err = messages(capsys.readouterr().err)
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines and lines[0].startswith(f"sphragis {command}: error: "), err
    return err


def test_missing_snapshot_is_a_clear_error(tmp_path, monkeypatch, capsys):
    settings = tiny_settings(tmp_path)
    import shutil

    shutil.rmtree(settings.data / "harrington")
    with pytest.raises(FileNotFoundError, match=r"snapshot 'harrington' is not unpacked at .*harrington"):
        build.build(settings, select=["int_tokens"])
    use_settings(monkeypatch, settings)
    assert cli.main(["build", "--select", "int_tokens"]) == 1
    err = _one_error(capsys, "build")
    assert len(err.strip().splitlines()) == 1 and "snapshot 'harrington' is not unpacked" in err
    # the installed package has no Makefile: the way out is a sphragis command
    assert err.rstrip().endswith("; run `sphragis fetch`") and "make" not in err
    assert not settings.warehouse.exists()


def test_snapshot_without_treebank_files_is_a_clear_error(tmp_path, monkeypatch, capsys):
    settings = tiny_settings(tmp_path)
    (settings.data / "ud-ptnk" / "grc_ptnk-ud-train.conllu").unlink()
    use_settings(monkeypatch, settings)
    assert cli.main(["build", "--select", "int_tokens"]) == 1
    err = _one_error(capsys, "build")
    assert len(err.strip().splitlines()) == 1
    assert "snapshot 'ud-ptnk': no file under" in err and "grc_ptnk-ud-*.conllu" in err


def _mirror_pin(tmp_path: Path, *, sha256: str | None) -> dict:
    """A one-snapshot pin list whose archive holds the Harrington fixture (sha256 wrong if given)."""
    import hashlib

    mirror = tmp_path / "mirror"
    mirror.mkdir()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as tar:
        data = (FIXTURE_SOURCES / "harrington_grctb.6941.1.tb.xml").read_bytes()
        info = tarfile.TarInfo("public/xml/CITE_TREEBANK_XML/perseus/grctb/6941/grctb.6941.1.tb.xml")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    archive = mirror / "harrington@test.tar.xz"
    archive.write_bytes(buf.getvalue())
    pin = dict(next(s for s in config.snapshots() if s["name"] == "harrington"))
    pin.update(archive=archive.name, included_prefixes=["public/xml/"],
               sha256=sha256 or hashlib.sha256(archive.read_bytes()).hexdigest())
    return pin


def test_wrong_archive_checksum_is_a_clear_error_naming_the_archive(tmp_path, monkeypatch, capsys):
    pin = _mirror_pin(tmp_path, sha256="0" * 64)
    monkeypatch.setattr(config, "snapshots", lambda: (pin,))
    monkeypatch.setenv("SPHRAGIS_MIRROR", str(tmp_path / "mirror"))
    monkeypatch.setenv("SPHRAGIS_DATA", str(tmp_path / "data"))
    assert cli.main(["fetch", "--quiet"]) == 1
    err = _one_error(capsys, "fetch")
    archive = tmp_path / "mirror" / "harrington@test.tar.xz"
    assert f"sha256 mismatch for {archive}: expected {'0' * 64}, got " in err
    assert not (tmp_path / "data" / "harrington").exists()


def test_missing_archive_is_a_clear_error_naming_it(tmp_path, monkeypatch, capsys):
    pin = _mirror_pin(tmp_path, sha256=None)
    (tmp_path / "mirror" / pin["archive"]).unlink()
    monkeypatch.setattr(config, "snapshots", lambda: (pin,))
    monkeypatch.setenv("SPHRAGIS_MIRROR", str(tmp_path / "mirror"))
    monkeypatch.setenv("SPHRAGIS_DATA", str(tmp_path / "data"))
    assert cli.main(["fetch", "--quiet"]) == 1
    err = _one_error(capsys, "fetch")
    assert f"archive missing from the mirror: expected {tmp_path / 'mirror' / pin['archive']}" in err


def test_unknown_document_fails_the_build_naming_its_registry_key(tmp_path, monkeypatch, capsys):
    settings = tiny_settings(tmp_path)
    conllu = settings.data / "ud-perseus" / PERSEUS_PATH
    conllu.write_text(conllu.read_text(encoding="utf-8").replace(
        "# newdoc id = tlg0008.tlg001.perseus-grc1.12.tb.xml", "# newdoc id = tlg9999.tlg001.perseus-grc1.1.tb.xml"),
        encoding="utf-8")
    key = "ud_perseus | tlg9999.tlg001.perseus-grc1.1.tb.xml"
    with pytest.raises(runner.ModelTestFailure) as exc:
        build.build(settings, select=["int_curated_sentences"])
    assert any(m == "int_curated_sentences" and "relationships" in t and key in d for m, t, d in exc.value.failures)
    assert not settings.warehouse.exists()
    assert list(tmp_path.glob("warehouse.duckdb.building-*")) == []

    use_settings(monkeypatch, settings)
    assert cli.main(["build", "--select", "int_curated_sentences"]) == 1
    err = _one_error(capsys, "build")
    # one line names the model, the test and the key with its 3 sentences
    line = next(ln for ln in err.splitlines() if "relationships" in ln)
    assert line.strip().startswith("int_curated_sentences: relationships(to int_registry_keys.registry_key)")
    assert f"registry_key='{key}', n=3" in line
