"""Raw-layer ingest (SPEC §2): parsers on real fixtures, hostile input, and the lossless check."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sphragis.ingest import load, sources
from sphragis.ingest.agdt_xml import parse_agdt_xml
from sphragis.ingest.conllu_files import parse_conllu

SRC = Path(__file__).resolve().parent / "fixtures" / "sources"


def _token(pf, sentence_pos, token_pos):
    t = pf.tokens
    i = next(k for k in range(len(t["id"])) if t["sentence_pos"][k] == sentence_pos and t["token_pos"][k] == token_pos)
    return {c: v[i] for c, v in t.items()}


def test_agdt_xml_token_verbatim():
    pf = parse_agdt_xml(SRC / "agdt_tlg0003.tlg001.perseus-grc1.1.tb.xml")
    assert pf.n_sentences == pf.n_sentences_expected == 3
    tok = _token(pf, 1, 1)
    assert (tok["form"], tok["lemma"], tok["xpos"], tok["head"], tok["deprel"]) == (
        "Θουκυδίδης", "Θουκυδίδης", "n-s---mn-", "3", "SBJ")
    assert tok["line"] == 58
    s = pf.sentences
    assert (s["upstream_sentence_id"][0], s["document_id"][0], s["subdoc"][0]) == (
        "1", "urn:cts:greekLit:tlg0003.tlg001.perseus-grc1", "1.1.1")
    # every attribute is kept verbatim, artificial nodes included
    ellipses = [a for a in pf.tokens["attrs"] if a.get("artificial")]
    assert ellipses and ellipses[0]["artificial"] == "elliptic" and "insertion_id" in ellipses[0]
    assert pf.preamble and pf.preamble[0].startswith("<header")


def test_homer_v16_multiline_attributes_and_cite():
    pf = parse_agdt_xml(SRC / "agdt-homer_tlg0012.tlg001.perseus-grc1_1.tb.xml")
    tok = _token(pf, 1, 1)
    assert (tok["form"], tok["lemma"], tok["xpos"], tok["deprel"], tok["head"]) == ("μῆνιν", "μῆνις1", "n-s---fa-", "OBJ", "2")
    assert tok["attrs"]["cite"] == "urn:cts:greekLit:tlg0012.tlg001:1.1"
    assert pf.sentences["upstream_sentence_id"][0] == "2274106"
    assert pf.sentences["attrs"][0]["span"] == "μῆνιν0:.0"


def test_pedalion_single_quotes_and_extra_attributes():
    pf = parse_agdt_xml(SRC / "pedalion_achar.xml")
    tok = _token(pf, 1, 1)
    assert tok["form"] == "ὅσα" and tok["attrs"]["ref"] == "Leuven|0019-001|1|1"
    assert tok["attrs"]["sem"] == "degree/measure" and tok["attrs"]["gloss"] == "1: zo groot als"
    assert pf.sentences["attrs"][0]["Author"] == "Aristophanes"


#: Attribute text as an XML file may hold it: any character XML allows, escapes written out.
_XML_CHAR = st.characters(blacklist_categories=("Cs",), blacklist_characters="\ufffe\uffff",
                          min_codepoint=0x20) | st.sampled_from(list('\t\n\r"&<> =/'))
_XML_VALUE = st.text(_XML_CHAR, max_size=12) | st.sampled_from(
    [" () |  (guest-chamber)", '="', '" ', '"/>', "&amp;quot;", "a\tb", "<word x=\"1\"/>"])


def _escape_attribute(value: str) -> str:
    """XML attribute text whose parsed value is ``value`` (newlines, CR and tabs as character
    references, since a parser turns literal ones into spaces)."""
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;").replace("\n", "&#10;")
            .replace("\t", "&#9;").replace("\r", "&#13;"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.dictionaries(st.sampled_from(["id", "form", "lemma", "postag", "head", "relation",
                                                          "gloss", "cite", "sem", "x-y", "a.b"]),
                                         _XML_VALUE, min_size=1, max_size=6), max_size=4),
                min_size=1, max_size=3),
       st.booleans())
def test_xml_word_attributes_are_kept_verbatim(tmp_path_factory, sentences, with_comment):
    """Every word attribute reaches ``attrs`` with its value as the file gives it (escapes,
    quotes, leading spaces, markup-like text), in document order; a comment in a sentence goes
    to ``extra_xml`` and is not a word (SPEC §2, raw layer lossless). A sentence with a control
    character (category Cc: tab, newline, C1...) in a value is rejected whole, naming it."""
    body = []
    for i, words in enumerate(sentences, start=1):
        body.append(f'<sentence id="{i}">' + ("<!-- note -->" if with_comment and i == 1 else ""))
        body += ["<word " + " ".join(f'{k}="{_escape_attribute(v)}"' for k, v in w.items()) + "/>\n" for w in words]
        body.append("</sentence>\n")
    path = tmp_path_factory.mktemp("xml") / "t.xml"
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<treebank xmlns:saxon="http://saxon.sf.net/">\n'
                    + "".join(body) + "</treebank>\n", encoding="utf-8")
    pf = parse_agdt_xml(path)
    control = [any(re.search("[\x00-\x1f\x7f-\x9f]", v) for w in ws for v in w.values()) for ws in sentences]
    kept = [ws for ws, bad in zip(sentences, control) if not bad]
    words = [w for ws in kept for w in ws]
    assert pf.tokens["attrs"] == words and [list(a) for a in pf.tokens["attrs"]] == [list(w) for w in words]
    assert pf.tokens["form"] == [w.get("form") for w in words]
    assert pf.sentences["n_tokens"] == [len(ws) for ws in kept]
    assert pf.rejects["sentence_pos"] == [i for i, bad in enumerate(control, start=1) if bad]
    assert all(" control character U+" in why for why in pf.rejects["reason"])
    if not control[0]:
        assert pf.sentences["extra_xml"][0] == (["<!-- note -->"] if with_comment else None)


@pytest.mark.parametrize("word,attrs", [
    ('<word id="1" form="a">text</word>', {"id": "1", "form": "a"}),
    ('<word id="1" xml:lang="grc" form="a"/>', {"id": "1", "{http://www.w3.org/XML/1998/namespace}lang": "grc", "form": "a"}),
    ('<word xmlns:q="urn:q" id="1" q:note="n" form="a"/>', {"id": "1", "{urn:q}note": "n", "form": "a"}),
    ("<word/>", {}),
])
def test_xml_word_attribute_names_keep_their_namespace(tmp_path, word, attrs):
    """Namespaced attribute names are kept as lxml gives them (``{uri}name``), a word without
    attributes gets an empty map, and a word's text does not end up in ``attrs``."""
    path = tmp_path / "t.xml"
    path.write_text(f'<treebank><sentence id="1">\n{word}\n<word id="2" form="b"/>\n</sentence></treebank>\n',
                    encoding="utf-8")
    pf = parse_agdt_xml(path)
    assert pf.tokens["line"] == [2, 3] and pf.tokens["attrs"] == [attrs, {"id": "2", "form": "b"}]


def test_conllu_verbatim_columns_and_comments():
    pf = parse_conllu(SRC / "ud-proiel_grc_proiel-ud-dev.conllu")
    assert pf.n_sentences == 3 and not pf.rejects["reason"]
    tok = _token(pf, 1, 8)
    assert (tok["form"], tok["upos"], tok["xpos"], tok["deprel"], tok["misc"]) == ("ἦν", "AUX", "V-", "cop", "LId=1|Ref=1.10.1")
    assert tok["feats"] == "Aspect=Imp|Mood=Ind|Number=Sing|Person=3|Tense=Past|VerbForm=Fin|Voice=Act"
    assert pf.sentences["comments"][0][0] == "# source = Histories, Book 1, chapter 10"
    assert pf.sentences["upstream_sentence_id"][0] == "64428"


def test_conllu_newdoc_carries_document_id():
    pf = parse_conllu(SRC / "ud-perseus_grc_perseus-ud-test.conllu")
    assert set(pf.sentences["document_id"]) == {"tlg0008.tlg001.perseus-grc1.12.tb.xml"}


def test_truncated_xml_reports_line_and_keeps_earlier_sentences(tmp_path):
    data = (SRC / "agdt_tlg0003.tlg001.perseus-grc1.1.tb.xml").read_text(encoding="utf-8")
    cut = data.index("<sentence", data.index("</sentence>", data.index("</sentence>") + 1))  # start of sentence 3
    bad = tmp_path / "truncated.xml"
    bad.write_text(data[: cut + 300], encoding="utf-8")
    pf = parse_agdt_xml(bad)
    assert pf.n_sentences == 2
    assert pf.n_sentences_expected == 3
    reasons = pf.rejects["reason"]
    assert reasons[0].startswith("XML syntax error at line ")
    assert pf.rejects["line"][0] is not None and pf.rejects["line"][0] > 0
    # the cut-off sentence is accounted for, with the line of its start tag
    assert pf.rejects["sentence_pos"][1:] == [3]
    assert pf.rejects["line"][1] == data[:cut].count("\n") + 1


def test_conllu_bad_rows_reject_their_sentence_only(tmp_path):
    text = (SRC / "ud-perseus_grc_perseus-ud-test.conllu").read_text(encoding="utf-8")
    blocks = text.rstrip("\n").split("\n\n")
    rows = blocks[1].split("\n")
    rows[3] = "\t".join(rows[3].split("\t")[:9])  # 9 columns
    blocks[1] = "\n".join(rows)
    bad = tmp_path / "bad.conllu"
    bad.write_text("\ufeff" + "\n\n".join(blocks) + "\n\n", encoding="utf-8")  # with a BOM
    pf = parse_conllu(bad)
    assert pf.n_sentences == 2 and pf.n_sentences_expected == 3
    line = len("\n\n".join(blocks[:1]).split("\n")) + 1 + 4
    assert pf.rejects["line"] == [line]
    assert pf.rejects["reason"] == [f"line {line}: expected 10 tab-separated columns, found 9"]
    assert pf.rejects["sentence_pos"] == [2]


@pytest.mark.parametrize("head,message", [("x", "is not an integer"), ("99", "is outside the sentence")])
def test_conllu_bad_head(tmp_path, head, message):
    text = (SRC / "ud-ptnk_grc_ptnk-ud-train.conllu").read_text(encoding="utf-8")
    lines = text.split("\n")
    i = next(k for k, ln in enumerate(lines) if ln.startswith("1\t"))
    cols = lines[i].split("\t")
    cols[6] = head
    lines[i] = "\t".join(cols)
    p = tmp_path / "h.conllu"
    p.write_text("\n".join(lines), encoding="utf-8")
    pf = parse_conllu(p)
    assert pf.n_sentences == 2 and message in pf.rejects["reason"][0] and pf.rejects["line"][0] == i + 1


def _sentence_count(path: Path, fmt: str) -> int:
    data = path.read_bytes()
    if fmt == "agdt_xml":
        return len(re.findall(rb"<sentence[\s>/]", data))
    return sum(1 for block in re.split(r"\n\s*\n", data.decode("utf-8-sig")) if block.strip())


@pytest.mark.integration
def test_every_upstream_sentence_is_ingested_or_rejected(real_settings, real_warehouse):
    """SPEC §2: per file, raw_sentences + ingest_rejects = the file's own sentence count."""
    con = real_warehouse
    rows = con.execute("""
        select f.snapshot, f.path, f.format, f.n_sentences_ingested,
               (select count(*) from raw_sentences s where s.file_id = f.file_id),
               (select count(*) from ingest_rejects r where r.file_id = f.file_id and r.sentence_pos is not null)
        from raw_files f order by f.file_id""").fetchall()
    assert len(rows) == 302
    for snapshot, path, fmt, n_ingested, n_raw, n_rejected in rows:
        expected = _sentence_count(real_settings.data / snapshot / path, fmt)
        assert n_raw == n_ingested and n_raw + n_rejected == expected, path
    per_project = dict(con.execute("select project, sum(n_sentences_ingested) from raw_files group by 1").fetchall())
    assert per_project == {"agdt": 33555, "gorman": 29547, "pedalion": 18099, "harrington": 1046,
                           "ud_perseus": 2443, "ud_proiel": 2066, "ud_ptnk": 1576}


@pytest.mark.integration
def test_raw_layer_is_lossless_for_a_known_token(real_warehouse):
    row = real_warehouse.execute("""
        select t.form, t.lemma, t.xpos, t.head, t.deprel, t.attrs['cite']
        from raw_tokens t join raw_sentences s using (sentence_uid) join raw_files f using (file_id)
        where f.path = 'v1.6/greek/data/tlg0012.tlg001.perseus-grc1_1.tb.xml' and s.sentence_pos = 1 and t.token_pos = 1
    """).fetchone()
    assert row == ("μῆνιν", "μῆνις1", "n-s---fa-", "2", "OBJ", "urn:cts:greekLit:tlg0012.tlg001:1.1")


def test_load_is_deterministic_and_keeps_rejects(tmp_path):
    """Two loads of the same files give identical tables; a malformed file's rejects are kept."""
    bad = tmp_path / "broken.xml"
    bad.write_text('<treebank><sentence id="1"><word id="1" form="a" head="0"/></sentence><sentence id="2"><word', encoding="utf-8")
    snap = {"name": "fx", "project": "gorman", "treebank_source": "Gorman", "commit": "0" * 40, "upstream": "u",
            "license": "CC BY-SA 4.0", "format": "agdt_xml", "treebank_files": ["*.xml"], "exclude": []}
    (tmp_path / "ok.xml").write_bytes((SRC / "gorman_Lysias 1 bu1.xml").read_bytes())
    files = sources.discover({"fx": tmp_path}, [snap])
    dumps = []
    for _ in range(2):
        con = duckdb.connect()
        summary = load.load(con, files, load.parse_all(files, workers=1))
        dumps.append(con.execute("select * from raw_tokens order by all").fetchall())
        # words: the Lysias cut's 51 and broken.xml's first (its last "<word" is cut before a tag ends)
        assert summary == {"gorman": {"files": 2, "counted": 4, "sentences": 3, "words_counted": 52, "tokens": 52,
                                      "rejects": 2, "words_rejected": 0}}
        rej = con.execute("select path, line, sentence_pos, reason from ingest_rejects order by sentence_pos nulls first").fetchall()
        assert rej[0][0] == "broken.xml" and rej[0][2] is None and "XML syntax error at line 1" in rej[0][3]
        assert rej[1][:3] == ("broken.xml", 1, 2)
    assert dumps[0] == dumps[1]


def _fixture_files(tmp_path):
    """The XML and CoNLL-U fixtures as two snapshots (one per format), discovered like the build does."""
    snaps = []
    for name, fmt, project, glob in (("x", "agdt_xml", "gorman", "*.xml"), ("c", "conllu", "ud_perseus", "*.conllu")):
        (tmp_path / name).mkdir()
        for p in SRC.glob(glob):
            (tmp_path / name / p.name).write_bytes(p.read_bytes())
        snaps.append({"name": name, "project": project, "treebank_source": project, "commit": "0" * 40,
                      "upstream": "u", "license": "CC BY-SA 4.0", "format": fmt, "treebank_files": [glob], "exclude": []})
    return sources.discover({s["name"]: tmp_path / s["name"] for s in snaps}, snaps)


def test_pool_spilled_parquet_loads_like_in_process_parse(tmp_path):
    """The build's path (2 pool workers spilling Parquet) fills the raw tables exactly like an
    in-process parse, rows in the same physical order, uids sequential across files."""
    files = _fixture_files(tmp_path)
    spill = tmp_path / "spill"
    spill.mkdir()
    dumps = []
    for parsed, kw in ((load.parse_all(files, workers=1), {}),
                       (load.iter_parsed(files, workers=2, spill_to=spill), {"spill_to": spill})):
        con = duckdb.connect()
        load.load(con, files, parsed, **kw)
        dumps.append([con.execute(f"select rowid, * from {t} order by rowid").fetchall()
                      for t in ("raw_files", "raw_sentences", "raw_tokens")])
    assert dumps[0] == dumps[1]
    con.execute("attach ':memory:' as unused")  # the connection stays usable
    tok = con.execute("""
        select t.form, t.xpos, t.line, t.attrs['lemma'], s.sentence_uid
        from raw_tokens t join raw_sentences s using (sentence_uid) join raw_files f using (file_id)
        where f.path = 'agdt_tlg0003.tlg001.perseus-grc1.1.tb.xml' and s.sentence_pos = 1 and t.token_pos = 1""").fetchone()
    assert tok[:4] == ("Θουκυδίδης", "n-s---mn-", 58, "Θουκυδίδης")
    uids = [r[0] for r in con.execute("select sentence_uid from raw_sentences order by rowid").fetchall()]
    assert uids == list(range(1, len(uids) + 1)) and len({f.path for f in files}) == 8


def test_pool_workers_exit_when_the_build_is_killed(tmp_path):
    """A build killed outright (SIGKILL) must not leave its parse workers behind."""
    files = _fixture_files(tmp_path)
    script = tmp_path / "killme.py"
    script.write_text(
        "import multiprocessing, sys, time\n"
        "from pathlib import Path\n"
        "from sphragis.ingest import load, sources\n"
        "snaps = [{'name': n, 'project': 'p', 'treebank_source': 't', 'commit': '0', 'upstream': 'u', 'license': 'l',\n"
        "          'format': f, 'treebank_files': [g], 'exclude': []} for n, f, g in\n"
        "         (('x', 'agdt_xml', '*.xml'), ('c', 'conllu', '*.conllu'))]\n"
        "files = sources.discover({s['name']: Path(sys.argv[1]) / s['name'] for s in snaps}, snaps) * 500\n"
        "it = load.iter_parsed(files, workers=2)\n"
        "next(it)\n"
        "print(' '.join(str(p.pid) for p in multiprocessing.active_children()), flush=True)\n"
        "time.sleep(120)\n", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2 and files
    finally:
        proc.kill()
        proc.wait()

    def alive(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            return False
        return "\nState:\tZ" not in state  # a zombie has exited (waiting to be reaped)

    deadline = time.monotonic() + 10
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [p for p in pids if alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert not left, f"workers {left} outlived the killed parent"
