"""Tests of sphragis.evaluation.drift (SPEC §12; seed 001 convention decomposition).

The crafted pair below is small enough to score by hand; every expected figure is derived in
the comments. The integration test applies two known convention changes to the real UD PROIEL
test fold and checks the decomposition attributes the whole gap to them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import pinned_source_file
from sphragis.evaluation.drift import DriftResult, decompose
from sphragis.evaluation.score import ConlluFormatError, TokenizationMismatch



def conllu(*sentences: list[tuple[str, str, str, int, str]]) -> str:
    """Rows are ``(form, upos, feats, head, deprel)``; IDs are 1..n; lemma = form."""
    out = []
    for k, rows in enumerate(sentences, start=1):
        out.append(f"# sent_id = s{k}")
        for i, (form, upos, feats, head, deprel) in enumerate(rows, start=1):
            out.append(f"{i}\t{form}\t{form}\t{upos}\t_\t{feats}\t{head}\t{deprel}\t_\t_")
        out.append("")
    return "\n".join(out) + "\n"


# The crafted pair, one word a line: its form, then UPOS FEATS HEAD DEPREL of a (gold), then the
# same four of b (system); a comment says what b's word does to the scores.
PAIR = ("""
    # UPOS NOUN→PRON; feats lack PronType (b never uses it): scheme-absent; the subtype nsubj:pass
    # equals nsubj for the evaluator
    w1 NOUN Case=Nom|Number=Sing|PronType=Prs 2 nsubj     PRON Case=Nom|Number=Sing 2 nsubj:pass
    # extra Aspect (a b-only type): shared-scheme feats error
    w2 VERB Mood=Ind|Number=Sing|Tense=Pres   0 root      VERB Aspect=Imp|Mood=Ind|Number=Sing|Tense=Pres 0 root
    # Degree=Pos where a has none: shared-scheme error; discourse→advmod label-only
    w3 ADV  _                                 2 discourse ADV  Degree=Pos           2 advmod
    # no Definite (never in b): scheme-absent; det→nmod label-only
    w4 DET  Case=Acc|Definite=Def|Number=Sing 5 det       DET  Case=Acc|Number=Sing 5 nmod
    # Case value Acc→Gen: shared-scheme error; head 2→3: attachment error
    w5 NOUN Case=Acc|Number=Sing              2 obj       NOUN Case=Gen|Number=Sing 3 obj
    """, """
    # PronType missing (and Number differs): scheme-absent
    x1 PRON Case=Nom|Number=Plur|PronType=Dem 3 nsubj     PRON Case=Nom|Number=Sing 3 nsubj
    # UPOS ADV→PART; discourse→advmod label-only
    x2 ADV  _                                 3 discourse PART _                    3 advmod
    # Typo is not a universal type for the evaluator: ignored, so x3 is fully correct
    x3 VERB Mood=Ind|Number=Plur              0 root      VERB Mood=Ind|Number=Plur|Typo=Yes 0 root
    # Degree missing: shared-scheme error; head 1→3 (and another label): attachment error
    x4 ADJ  Case=Nom|Degree=Pos|Number=Plur   1 amod      ADJ  Case=Nom|Number=Plur 3 nmod
    """)


def _side(table: str, side: int) -> list[tuple[str, str, str, int, str]]:
    """The rows of ``conllu`` for annotation a (``side`` 0) or b (1) of one sentence of PAIR."""
    rows = [line.split() for line in table.strip().splitlines() if not line.lstrip().startswith("#")]
    return [(form, *cols[4 * side:4 * side + 2], int(cols[4 * side + 2]), cols[4 * side + 3])
            for form, *cols in rows]


A = conllu(*(_side(t, 0) for t in PAIR))  # gold
B = conllu(*(_side(t, 1) for t in PAIR))  # system
N = 9


@pytest.fixture(scope="module")
def result() -> DriftResult:
    return decompose(A, B, scheme_types="observed", per_type="union")


def r2(x: float) -> float:
    return round(x, 2)


def test_headline_scores(result):
    assert (result.sentences, result.words) == (2, N)
    # UPOS errors w1, x2 → 7/9; UFeats errors w1 w2 w3 w4 w5 x1 x4 → 2/9;
    # attachment errors w5, x4 → UAS 7/9; label-only w3 w4 x2 → LAS 4/9
    assert r2(result.upos) == r2(700 / 9) == 77.78
    assert r2(result.ufeats) == r2(200 / 9) == 22.22
    assert r2(result.uas) == 77.78 and r2(result.las) == 44.44
    for metric, mine in (("UPOS", result.upos), ("UFeats", result.ufeats),
                         ("UAS", result.uas), ("LAS", result.las)):
        assert result.evaluator[metric] == pytest.approx(mine, abs=1e-9), metric


def test_ufeats_split(result):
    # gap 7/9 = scheme-absent (w1, w4, x1: PronType / Definite never in b) 3/9
    #         + shared-scheme (w2, w3, w5, x4) 4/9
    assert result.ufeats_errors == 7
    assert result.scheme_absent_types == ("Definite", "PronType")
    assert result.b_only_types == ("Aspect",)
    assert (result.scheme_absent_words, result.shared_scheme_errors) == (3, 4)
    assert r2(result.ufeats_gap) == 77.78
    assert r2(result.scheme_absent_points) == 33.33 and r2(result.shared_scheme_points) == 44.44
    assert result.scheme_absent_points + result.shared_scheme_points == pytest.approx(
        result.ufeats_gap)
    # 6 shared-scheme words (w2 w3 w5 x2 x3 x4), 2 correct (x2, x3)
    assert result.shared_scheme_words == 6 and r2(result.shared_scheme_ufeats) == 33.33


def test_per_type_agreement(result):
    per = {f.feature: f for f in result.feature_agreement}
    assert list(per) == ["Case", "Degree", "Mood", "Number", "Tense"]  # types in both files
    # Case: w1 w4 w5 x1 x4 in both; w5 differs → 4/5
    assert (per["Case"].union_words, per["Case"].same, per["Case"].agreement) == (5, 4, 80.0)
    # Degree: a on x4 only, b on w3 only → 0/2
    d = per["Degree"]
    assert (d.a_words, d.b_words, d.union_words, d.same, d.agreement) == (1, 1, 2, 0, 0.0)
    # Number: 7 words in both; x1 Plur vs Sing → 6/7
    assert (per["Number"].union_words, per["Number"].same) == (7, 6)
    assert r2(per["Number"].agreement) == 85.71
    assert per["Mood"].agreement == 100.0 and per["Tense"].agreement == 100.0


def test_las_split_and_relation_confusions(result):
    assert (result.attachment_errors, result.label_only_errors) == (2, 3)
    assert r2(result.las_gap) == 55.56
    assert r2(result.attachment_points) == 22.22 and r2(result.label_only_points) == 33.33
    # label-only: w3, x2 discourse→advmod; w4 det→nmod (x4 amod→nmod is an attachment error)
    conf = [(c.a, c.b, c.count, r2(c.share)) for c in result.relation_confusions]
    assert conf == [("discourse", "advmod", 2, 66.67), ("det", "nmod", 1, 33.33)]


def test_upos_confusions(result):
    assert result.upos_errors == 2
    conf = [(c.a, c.b, c.count, c.share) for c in result.upos_confusions]
    assert conf == [("ADV", "PART", 1, 50.0), ("NOUN", "PRON", 1, 50.0)]  # ties: alphabetical


def test_top_limits_pairs():
    r = decompose(A, B, top=1)
    assert len(r.relation_confusions) == 1 and len(r.upos_confusions) == 1
    assert r.relation_confusions[0].a == "discourse"


def test_to_dict_and_report(result):
    d = json.loads(json.dumps(result.to_dict()))
    assert d["ufeats"]["scheme_absent_points"] == 33.33
    assert d["ufeats"]["per_type"][0] == {"feature": "Case", "agreement": 80.0, "a_words": 5,
                                          "b_words": 5, "union_words": 5, "same": 4}
    assert d["las"]["relation_confusions"][0] == {"a": "discourse", "b": "advmod", "count": 2,
                                                  "share": 66.67}
    assert d["scores"] == {"UPOS": 77.78, "UFeats": 22.22, "UAS": 77.78, "LAS": 44.44}
    text = result.format_report()
    assert "UFeats gap 77.78 points = scheme-absent 33.33 (3 words)" in text
    assert "LAS gap 55.56 points = attachment 22.22 (2 words) + label-only 33.33" in text
    assert "discourse -> advmod" in text and "Definite, PronType" in text


def test_identical_annotations():
    r = decompose(A, A, scheme_types="observed")
    assert (r.ufeats_gap, r.las_gap, r.upos_errors) == (0.0, 0.0, 0)
    assert r.relation_confusions == () and r.upos_confusions == ()
    assert r.scheme_absent_types == () and all(f.agreement == 100.0 for f in r.feature_agreement)
    assert r.shared_scheme_ufeats == 100.0
    # a fixed scheme: w1, w4, x1 carry PronType/Definite (outside the conversion list) but b
    # carries them too, so they are scheme-absent words without being errors
    c = decompose(A, A)
    assert c.scheme_absent_types == c.b_outside_scheme_types == ("Definite", "PronType")
    assert (c.scheme_absent_words, c.scheme_absent_errors, c.ufeats_gap) == (3, 0, 0.0)
    assert c.shared_scheme_words == 6 and c.shared_scheme_ufeats == 100.0
    assert "note: b uses types outside the scheme: Definite, PronType" in c.format_report()


def test_requires_same_tokenization():
    with pytest.raises(TokenizationMismatch, match="'s2'.*token 3"):
        decompose(A, B.replace("\tx3\tx3\t", "\tx9\tx3\t"))
    with pytest.raises(ConlluFormatError):
        decompose("", "")


@pytest.mark.integration
def test_real_proiel_fold_known_conventions():
    """Strip PronType and relabel discourse→advmod on UD PROIEL test: the whole UFeats gap must
    be scheme-absent and the whole LAS gap label-only discourse→advmod (seed 001's two largest
    PROIEL convention effects)."""
    a = pinned_source_file("ud-proiel", "grc_proiel-ud-test.conllu").decode("utf-8")
    out, prontype, discourse = [], 0, 0
    for line in a.split("\n"):
        c = line.split("\t")
        if len(c) == 10 and c[0].isdigit():
            feats = c[5].split("|")
            prontype += any(f.startswith("PronType=") for f in feats)
            c[5] = "|".join(f for f in feats if not f.startswith("PronType=")) or "_"
            if c[7].split(":")[0] == "discourse":
                discourse += 1
                c[7] = "advmod"
            line = "\t".join(c)
        out.append(line)
    r = decompose(a, "\n".join(out), scheme_types="observed")
    assert r.words == 13314  # seed 001: PROIEL test has 13,314 words
    assert r.scheme_absent_types == ("PronType",)
    assert (r.scheme_absent_words, r.shared_scheme_errors) == (prontype, 0)
    assert (r.attachment_errors, r.label_only_errors) == (0, discourse)
    assert [(c.a, c.b, c.share) for c in r.relation_confusions] == [
        ("discourse", "advmod", 100.0)]
    assert r.upos_errors == 0 and r.shared_scheme_ufeats == 100.0


# --------------------------------------------------------------------------------------------
# Named definitions: scheme types and the per-type denominator, on fixtures cut from
# two example sentences (tests/fixtures/eval/README.md)
# --------------------------------------------------------------------------------------------

FIXTURES = Path(__file__).parent / "fixtures" / "eval"
# UD PROIEL test, sent_id 64490 (its first sentence), 6 words:
#   1 Δελφῶν    Case=Gen|Gender=Masc|Number=Plur
#   2 οἶδα      Aspect=Perf|Mood=Ind|Number=Sing|Person=1|Tense=Past|VerbForm=Fin|Voice=Act
#   3 ἐγὼ       Case=Nom|Gender=Masc|Number=Sing|Person=1|PronType=Prs
#   4 οὕτω      _
#   5 ἀκούσας   Aspect=Perf|Case=Nom|Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part|Voice=Act
#   6 γενέσθαι  Aspect=Perf|Tense=Past|VerbForm=Inf|Voice=Mid
PROIEL_64490 = FIXTURES / "grc_proiel-ud-test.64490.conllu"


def empty_feats(text: str) -> str:
    """The same CoNLL-U with every FEATS column set to ``_`` (a prediction with no features)."""
    out = []
    for line in text.split("\n"):
        c = line.split("\t")
        if len(c) == 10:
            c[5] = "_"
            line = "\t".join(c)
        out.append(line)
    return "\n".join(out)


def test_conversion_types_are_the_published_feats_seed():
    from sphragis.evaluation.drift import conversion_types

    # SPEC §5 "FEATS": the types the AGDT -> UD conversion publishes (seed feats_published_types)
    assert conversion_types() == ("Aspect", "Case", "Degree", "Gender", "Mood", "Number",
                                  "Person", "Tense", "VerbForm", "Voice")


def test_scheme_types_on_proiel_64490_against_empty_feats():
    a = PROIEL_64490.read_text(encoding="utf-8")
    b = empty_feats(a)
    # UFeats errors: every word with gold features (1, 2, 3, 5, 6); οὕτω (_ = _) is right
    # → gap 5/6 = 83.33 points
    proto = decompose(a, b, protocol="seed001")
    assert (proto.words, proto.ufeats_errors, r2(proto.ufeats_gap)) == (6, 5, 83.33)
    assert (proto.scheme_types, proto.per_type) == ("conversion", "gold")
    # conversion list: only PronType (ἐγὼ) is outside it → scheme-absent 1/6 = 16.67 points;
    # Δελφῶν (Case, Gender, Number: all in the list) is a shared-scheme error, as are οἶδα,
    # ἀκούσας, γενέσθαι → 4/6 = 66.67 points; shared-scheme UFeats = οὕτω alone right of 5
    assert proto.scheme_absent_types == ("PronType",)
    assert (proto.scheme_absent_words, proto.scheme_absent_errors) == (1, 1)
    assert (r2(proto.scheme_absent_points), r2(proto.shared_scheme_points)) == (16.67, 66.67)
    assert (proto.shared_scheme_words, proto.shared_scheme_errors) == (5, 4)
    assert proto.shared_scheme_ufeats == 20.0
    # per type, over the gold words with the type: b has none, so every type scores 0/a_words
    per = {f.feature: (f.a_words, f.b_words, f.same, f.agreement) for f in proto.feature_agreement}
    assert per == {"Aspect": (3, 0, 0, 0.0), "Case": (3, 0, 0, 0.0), "Gender": (3, 0, 0, 0.0),
                   "Mood": (1, 0, 0, 0.0), "Number": (4, 0, 0, 0.0), "Person": (2, 0, 0, 0.0),
                   "Tense": (3, 0, 0, 0.0), "VerbForm": (3, 0, 0, 0.0), "Voice": (3, 0, 0, 0.0)}
    # observed: b uses no type, so all ten gold types are scheme-absent and so is every error
    # (5/6 = 83.33 scheme-absent / 0.00 shared), including Δελφῶν: as the real fold's 74.74 / 0.00
    obs = decompose(a, b, scheme_types="observed")
    assert obs.scheme == () and len(obs.scheme_absent_types) == 10
    assert (r2(obs.scheme_absent_points), r2(obs.shared_scheme_points)) == (83.33, 0.0)
    assert (obs.shared_scheme_words, obs.shared_scheme_ufeats) == (1, 100.0)
    assert obs.feature_agreement == ()
    # an explicit list behaves as a fixed scheme: without Person, ἐγὼ and οἶδα are scheme-absent
    lst = decompose(a, b, scheme_types="Aspect,Case,Gender,Mood,Number,Tense,VerbForm,Voice")
    assert lst.scheme_types == "list" and lst.scheme_absent_types == ("Person", "PronType")
    assert (lst.scheme_absent_errors, lst.shared_scheme_errors) == (2, 3)
    # the definitions travel with the report
    d = json.loads(json.dumps(proto.to_dict()))
    assert d["definitions"]["scheme_types"]["choice"] == "conversion"
    assert d["definitions"]["scheme_types"]["types"] == list(proto.scheme)
    assert d["definitions"]["scheme_types"]["source"] == "sql/seeds/feats_published_types.csv"
    assert d["definitions"]["per_type"]["choice"] == "gold"
    assert d["definitions"]["protocol"] == "seed001"
    assert "pyaegean" in d["definitions"]["protocol_description"]
    assert d["ufeats"]["scheme_absent_points"] == 16.67 and d["ufeats"]["shared_scheme_points"] == 66.67
    assert "per-type agreement over gold; protocol seed001" in proto.format_report()


# UD Perseus test sentences tlg0008.tlg001.perseus-grc1.12.tb.xml@197 and @216 (27 words), as
# the warehouse renders them: a = source:ud_perseus-test, b = native:agdt@ud_perseus-test (the
# AGDT native conversion). FEATS differences, all inside the conversion scheme:
#   @197  1 ζῶσι          b adds Aspect=Imp
#   @197  9 θρεψαμένοις   b adds Aspect=Perf
#   @197 13 ποιούμενοι    b adds Aspect=Imp; Voice Mid → Mid,Pass
#   @197 15 πλησιάζοντες  b adds Aspect=Imp
#   @216  2 ἐξῆν          both Aspect=Imp (the only gold Aspect)
#   @216  9 τρέφεσθαι     b adds Aspect=Imp; Voice Mid → Mid,Pass
PERSEUS_A = FIXTURES / "ud_perseus-test.197-216.source.conllu"
PERSEUS_B = FIXTURES / "ud_perseus-test.197-216.native-agdt.conllu"


def test_per_type_denominator_on_perseus_197_216():
    a = PERSEUS_A.read_text(encoding="utf-8")
    b = PERSEUS_B.read_text(encoding="utf-8")
    gold = decompose(a, b, protocol="seed001")
    union = decompose(a, b, per_type="union")
    for r in (gold, union):
        # UFeats errors: ζῶσι, θρεψαμένοις, ποιούμενοι, πλησιάζοντες, τρέφεσθαι → 5/27 = 18.52
        # points, none scheme-absent (UD Perseus uses only conversion types here)
        assert (r.words, r.ufeats_errors, r2(r.ufeats_gap)) == (27, 5, 18.52)
        assert r.scheme_absent_types == () and r.scheme_absent_errors == 0
        asp = next(f for f in r.feature_agreement if f.feature == "Aspect")
        # Aspect: gold on ἐξῆν only; b on the six words listed above; same value on ἐξῆν
        assert (asp.a_words, asp.b_words, asp.union_words, asp.same) == (1, 6, 6, 1)
    per_gold = {f.feature: r2(f.agreement) for f in gold.feature_agreement}
    per_union = {f.feature: r2(f.agreement) for f in union.feature_agreement}
    # gold denominator: 1/1 = 100.0 (the real fold's 676/676 in small); union: 1/6 = 16.67
    # (the real fold's 676/3,650 = 18.52)
    assert per_gold["Aspect"] == 100.0 and per_union["Aspect"] == 16.67
    # Voice: 6 verbs carry it on both sides, ποιούμενοι and τρέφεσθαι differ → 4/6 either way
    assert per_gold["Voice"] == per_union["Voice"] == 66.67
    assert per_gold == {**per_union, "Aspect": 100.0}
    assert set(per_gold) == {"Aspect", "Case", "Gender", "Mood", "Number", "Person", "Tense",
                             "VerbForm", "Voice"}
    assert all(v == 100.0 for k, v in per_gold.items() if k != "Voice")
    assert "Aspect      100.00  (1/1; a 1, b 6, either 6)" in gold.format_report()
    assert "Aspect       16.67  (1/6; a 1, b 6, either 6)" in union.format_report()
    assert union.to_dict()["definitions"]["per_type"]["choice"] == "union"


def test_definition_errors():
    a = PROIEL_64490.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="not universal feature types: Foo"):
        decompose(a, a, scheme_types="Case,Foo")
    with pytest.raises(ValueError, match="empty list"):
        decompose(a, a, scheme_types=" , ")
    with pytest.raises(ValueError, match="per-type: expected one of gold, union"):
        decompose(a, a, per_type="either")
    with pytest.raises(ValueError, match="protocol seed001 uses scheme types conversion"):
        decompose(a, a, protocol="seed001", scheme_types="observed")
    with pytest.raises(ValueError, match="unknown protocol 'x'"):
        decompose(a, a, protocol="x")


@pytest.mark.integration
def test_real_proiel_fold_against_empty_feats():
    """Seed 001: UD PROIEL test gold against a prediction with empty FEATS splits the
    74.74-point UFeats gap 24.22 scheme-absent / 50.53 shared under the protocol's definitions
    (3,224 words carry one of PROIEL's five non-conversion types, 10,090 words do not), and
    74.74 / 0.00 when the scheme is the types the prediction uses (none)."""
    a = pinned_source_file("ud-proiel", "grc_proiel-ud-test.conllu").decode("utf-8")
    b = empty_feats(a)
    r = decompose(a, b, protocol="seed001")
    assert (r.words, r.ufeats_errors) == (13314, 9951)
    assert r.scheme_absent_types == ("Definite", "Polarity", "Poss", "PronType", "Reflex")
    assert (r.scheme_absent_errors, r.shared_scheme_errors, r.shared_scheme_words) == (3224, 6727, 10090)
    d = r.to_dict()["ufeats"]
    assert (d["gap"], d["scheme_absent_points"], d["shared_scheme_points"]) == (74.74, 24.22, 50.53)
    o = decompose(a, b, scheme_types="observed").to_dict()["ufeats"]
    assert (o["gap"], o["scheme_absent_points"], o["shared_scheme_points"]) == (74.74, 74.74, 0.0)
