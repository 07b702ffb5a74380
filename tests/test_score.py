"""Tests of sphragis.evaluation.score (SPEC §12; seed 001 protocol).

Unit tests run on a 20-sentence cut of the real UD Perseus test fold
(tests/fixtures/eval/, CC BY-NC-SA 2.5); the integration test scores the whole fold from
../shared/sources and skips when that folder is absent.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import pinned_source_file
from sphragis.evaluation.bootstrap import draw
from sphragis.evaluation.score import (
    METRICS,
    MIN_CI_SENTENCES,
    UNASSIGNED_BUCKET,
    ConlluFormatError,
    TokenizationMismatch,
    _bootstrap_f1,
    evaluate_whole,
    format_table,
    parse_sentences,
    score,
    sentence_counts,
)

FIXTURE = Path(__file__).parent / "fixtures" / "eval" / "grc_perseus-ud-test.head20.conllu"
N_WORDS = 430  # words in the fixture
N_CONTENT = 271  # words with a content deprel (CLAS/MLAS/BLEX denominators)
SENT1 = "tlg0008.tlg001.perseus-grc1.12.tb.xml@197"  # first fixture sentence

# CoNLL-U columns
ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL = range(8)


@pytest.fixture(scope="module")
def gold() -> str:
    return FIXTURE.read_text(encoding="utf-8")


def edit(text: str, changes: dict[tuple[int, int, int], str]) -> str:
    """Return ``text`` with ``{(sentence no. 1-based, word ID, column): value}`` applied."""
    out, sent, in_sent, done = [], 1, False, set()
    for line in text.split("\n"):
        if not line.strip():
            if in_sent:
                sent += 1
            in_sent = False
            out.append(line)
            continue
        in_sent = True
        cols = line.split("\t")
        if len(cols) == 10 and cols[0].isdigit():
            for (s, w, c), v in changes.items():
                if s == sent and int(cols[0]) == w:
                    cols[c] = v
                    done.add((s, w, c))
            line = "\t".join(cols)
        out.append(line)
    assert done == set(changes), f"edits not applied: {set(changes) - done}"
    return "\n".join(out)


def column(text: str, sent: int, word: int, col: int) -> str:
    return parse_sentences(text)[sent - 1].lines[
        [i for i, ln in enumerate(parse_sentences(text)[sent - 1].lines)
         if ln.split("\t")[0] == str(word)][0]].split("\t")[col]


def perturb(text: str, seed: int, rate: float = 0.1) -> str:
    """A deterministic pseudo-system: random UPOS/lemma/feats/deprel/head changes, valid trees.

    Heads move only to the grandparent (never creating a cycle) and never to 0 (no second root).
    """
    rng = random.Random(seed)
    tags = ["NOUN", "VERB", "ADJ", "ADV", "PRON", "DET", "ADP", "CCONJ", "PART"]
    rels = ["nsubj", "obj", "obl", "advmod", "nmod", "amod", "det", "case", "cc", "conj", "mark"]
    blocks = []
    for s in parse_sentences(text):
        rows = [ln.split("\t") if not ln.startswith("#") else ln for ln in s.lines]
        words = {r[0]: r for r in rows if isinstance(r, list) and r[0].isdigit()}
        for r in words.values():
            if rng.random() < rate:
                r[UPOS] = rng.choice([t for t in tags if t != r[UPOS]])
            if rng.random() < rate:
                r[LEMMA] = r[LEMMA] + "x"
            if rng.random() < rate and r[FEATS] != "_":
                feats = r[FEATS].split("|")
                feats.pop(rng.randrange(len(feats)))
                r[FEATS] = "|".join(feats) or "_"
            if rng.random() < rate and r[DEPREL] != "root":
                r[DEPREL] = rng.choice([d for d in rels if d != r[DEPREL]])
            if rng.random() < rate and r[HEAD] != "0":
                grand = words[r[HEAD]][HEAD]
                if grand != "0":
                    r[HEAD] = grand
        blocks.append("\n".join(r if isinstance(r, str) else "\t".join(r) for r in rows))
    return "\n\n".join(blocks) + "\n\n"


def f1s(result) -> dict[str, float]:
    return {m: result.f1(m) for m in METRICS}


def all_100_but(**changed: float) -> dict[str, float]:
    """F1 of every metric: 100 except the ``changed`` ones."""
    return {**dict.fromkeys(METRICS, 100.0), **changed}


def pct(num: int, den: int) -> float:
    return round(100 * num / den, 2)


# ---------------------------------------------------------------------------------------------
# identity and exact perturbations
# ---------------------------------------------------------------------------------------------


def test_fixture_shape(gold):
    sents = parse_sentences(gold)
    assert len(sents) == 20 and sents[0].sent_id == SENT1
    assert sum(1 for s in sents for t in s.tokens) == N_WORDS


def test_self_score_is_100_with_zero_width_ci(gold):
    r = score(gold, gold)
    assert r.overall.sentences == 20 and r.overall.words == N_WORDS
    for m in METRICS:
        s = r.metrics[m]
        assert (s.f1, s.ci_low, s.ci_high) == (100.0, 100.0, 100.0), m
    assert r.metrics["CLAS"].gold_total == N_CONTENT
    d = json.loads(json.dumps(r.to_dict()))
    assert d["metrics"]["LAS"]["ci"] == [100.0, 100.0]
    assert d["protocol"]["bootstrap"] == 999 and d["protocol"]["seed"] == 776


def test_upos_of_three_content_words(gold):
    # sentence 1: 1 ζῶσι (root), 4 οὗτοι (nsubj), 7 τρόπον (obj): all content deprels
    pred = edit(gold, {(1, 1, UPOS): "NOUN", (1, 4, UPOS): "NOUN", (1, 7, UPOS): "ADJ"})
    r = score(gold, pred, bootstrap=0)
    want = all_100_but(UPOS=pct(N_WORDS - 3, N_WORDS), AllTags=pct(N_WORDS - 3, N_WORDS),
                       MLAS=pct(N_CONTENT - 3, N_CONTENT))
    assert f1s(r) == want
    assert want["UPOS"] == 99.30 and want["MLAS"] == 98.89
    assert r.metrics["UPOS"].correct == N_WORDS - 3
    assert r.metrics["UPOS"].ci_low is None  # bootstrap=0: no CI


def test_upos_of_a_functional_child_breaks_its_heads_mlas(gold):
    # 5 τὸν (det of 7 τρόπον): MLAS compares the functional children of 7 → 7 fails
    pred = edit(gold, {(1, 5, UPOS): "PRON"})
    r = score(gold, pred, bootstrap=0)
    want = all_100_but(UPOS=pct(N_WORDS - 1, N_WORDS), AllTags=pct(N_WORDS - 1, N_WORDS),
                       MLAS=pct(N_CONTENT - 1, N_CONTENT))
    assert f1s(r) == want


def test_head_change(gold):
    # 2 δὲ (advmod of 1) reattached to 4 οὗτοι (whose head is 1: no cycle)
    assert column(gold, 1, 2, HEAD) == "1" and column(gold, 1, 4, HEAD) == "1"
    pred = edit(gold, {(1, 2, HEAD): "4"})
    r = score(gold, pred, bootstrap=0)
    want = all_100_but(UAS=pct(N_WORDS - 1, N_WORDS), LAS=pct(N_WORDS - 1, N_WORDS),
                       CLAS=pct(N_CONTENT - 1, N_CONTENT), MLAS=pct(N_CONTENT - 1, N_CONTENT),
                       BLEX=pct(N_CONTENT - 1, N_CONTENT))
    assert f1s(r) == want
    assert want["UAS"] == 99.77 and want["CLAS"] == 99.63


def test_deprel_change_content_to_content(gold):
    pred = edit(gold, {(1, 4, DEPREL): "obj"})  # οὗτοι nsubj → obj
    r = score(gold, pred, bootstrap=0)
    want = all_100_but(LAS=pct(N_WORDS - 1, N_WORDS), CLAS=pct(N_CONTENT - 1, N_CONTENT),
                       MLAS=pct(N_CONTENT - 1, N_CONTENT), BLEX=pct(N_CONTENT - 1, N_CONTENT))
    assert f1s(r) == want


def test_deprel_change_functional_to_content(gold):
    # 5 τὸν det → nmod: one more system content word (precision ≠ recall), and 7 τρόπον loses
    # its functional child for MLAS.
    pred = edit(gold, {(1, 5, DEPREL): "nmod"})
    r = score(gold, pred, bootstrap=0)
    want = all_100_but(LAS=pct(N_WORDS - 1, N_WORDS),
                       CLAS=round(100 * 2 * N_CONTENT / (2 * N_CONTENT + 1), 2),
                       MLAS=round(100 * 2 * (N_CONTENT - 1) / (2 * N_CONTENT + 1), 2),
                       BLEX=round(100 * 2 * N_CONTENT / (2 * N_CONTENT + 1), 2))
    assert f1s(r) == want
    clas = r.metrics["CLAS"]
    assert (clas.correct, clas.gold_total, clas.system_total) == (N_CONTENT, N_CONTENT,
                                                                  N_CONTENT + 1)
    assert clas.recall == 100.0 and round(clas.precision, 2) == pct(N_CONTENT, N_CONTENT + 1)


def test_evaluator_conventions_subtypes_and_non_universal_features(gold):
    # deprel subtypes and non-universal feature types are ignored by the CoNLL 2018 evaluator
    feats = column(gold, 1, 4, FEATS)
    pred = edit(gold, {(1, 4, DEPREL): "nsubj:pass", (1, 4, FEATS): feats + "|Xyz=Abc"})
    assert all(v == 100.0 for v in f1s(score(gold, pred, bootstrap=0)).values())


def test_lemma_and_feats(gold):
    pred = edit(gold, {(1, 1, LEMMA): "ζῶ", (1, 4, FEATS): "Case=Acc|Gender=Masc|Number=Plur"})
    r = score(gold, pred, bootstrap=0)
    want = all_100_but(Lemmas=pct(N_WORDS - 1, N_WORDS), BLEX=pct(N_CONTENT - 1, N_CONTENT),
                       UFeats=pct(N_WORDS - 1, N_WORDS), AllTags=pct(N_WORDS - 1, N_WORDS),
                       MLAS=pct(N_CONTENT - 1, N_CONTENT))
    assert f1s(r) == want


# ---------------------------------------------------------------------------------------------
# per-sentence counts and the bootstrap
# ---------------------------------------------------------------------------------------------


def test_sentence_counts_sum_to_evaluator(gold):
    pred = perturb(gold, seed=1, rate=0.15)
    g, p = parse_sentences(gold), parse_sentences(pred)
    counts = sentence_counts(g, p)
    ev = evaluate_whole(gold, pred)
    total = counts.sum(axis=0)
    r = score(gold, pred, bootstrap=0)
    for j, m in enumerate(METRICS):
        assert tuple(total[j]) == (ev[m].correct, ev[m].gold_total, ev[m].system_total), m
        assert r.metrics[m].f1 == 100 * ev[m].f1, m  # bit-identical to the evaluator
    assert r.f1("UPOS") < 100 and r.f1("LAS") < 100 and r.f1("MLAS") < 100


def test_bootstrap_resamples_equal_evaluator_on_resampled_text(gold):
    # Each resample's F1 from summed counts equals the evaluator run on the concatenated
    # resampled sentences: the count shortcut is the bootstrap of the real scorer.
    pred = perturb(gold, seed=2, rate=0.15)
    g, p = parse_sentences(gold), parse_sentences(pred)
    counts = sentence_counts(g, p)
    idx = draw(len(g), 15, 776)
    fast = _bootstrap_f1(counts, idx)
    for b, row in enumerate(idx):
        ev = evaluate_whole("".join(g[i].text() for i in row), "".join(p[i].text() for i in row))
        assert list(fast[b]) == [100 * ev[m].f1 for m in METRICS]


# A sentence with no content-deprel word: a lone punctuation mark attached to the root as
# ``punct`` (the evaluator accepts it; CLAS/MLAS/BLEX count only content deprels). Sentence 2
# is the fixture's sentence 1 with one content-word deprel changed (οὗτοι nsubj → obj).
PUNCT_ONLY = "# sent_id = p\n1\t·\t·\tPUNCT\t_\t_\t0\tpunct\t_\t_\n\n"


def test_empty_resample_scores_zero_as_the_evaluator_does(gold):
    s1 = parse_sentences(gold)[0].text()
    g_text = PUNCT_ONLY + s1
    p_text = PUNCT_ONLY + edit(s1, {(1, 4, DEPREL): "obj"})
    g, p = parse_sentences(g_text), parse_sentences(p_text)
    counts = sentence_counts(g, p)
    clas = METRICS.index("CLAS")
    # sentence 1 has no CLAS item at all; sentence 2 has 13 content-deprel words (all but the
    # 4 det, 1 cc and 2 punct of its 20), one of them (οὗτοι) with a wrong deprel
    assert tuple(counts[0, clas]) == (0, 0, 0)
    assert tuple(counts[1, clas]) == (12, 13, 13)
    f1_s2 = 100 * 2 * 12 / 26  # = 92.31: any resample holding sentence 2 scores this
    idx = draw(2, 999, 776)
    only_s1 = int((idx == 0).all(axis=1).sum())  # resamples drawing sentence 1 twice
    assert 200 < only_s1 < 300  # about a quarter of 999 (1/4 chance each)
    fast = _bootstrap_f1(counts, idx)[:, clas]
    # the official evaluator on a resample made of sentence 1 only: F1 = 0, not undefined
    ev = evaluate_whole(PUNCT_ONLY * 2, PUNCT_ONLY * 2)["CLAS"]
    assert (ev.gold_total, ev.system_total, ev.f1) == (0, 0, 0.0)
    assert int((fast == 0.0).sum()) == only_s1
    assert np.allclose(fast[fast > 0], f1_s2) and not np.isnan(fast).any()
    # every resample is kept: the 2.5 % quantile falls among the zeros (dropping them gave
    # [92.31, 92.31])
    r = score(g_text, p_text)
    m = r.metrics["CLAS"]
    assert round(m.f1, 2) == round(f1_s2, 2) == 92.31
    assert (m.ci_low, round(m.ci_high, 2)) == (0.0, 92.31)
    d = json.loads(json.dumps(r.to_dict()))
    assert d["metrics"]["CLAS"]["ci"] == [0.0, 92.31]
    assert "scores 0" in d["protocol"]["empty_resample"]


def test_one_sentence_bucket_gets_no_ci_and_a_note(gold):
    pred = perturb(gold, seed=4, rate=0.1)
    g = parse_sentences(gold)
    buckets = {s.label: ("single" if i == 0 else "rest") for i, s in enumerate(g)}
    r = score(gold, pred, buckets=buckets)
    one, rest = r.buckets["single"], r.buckets["rest"]
    assert (one.sentences, one.words) == (1, 20)  # sentence 1: 20 words (punctuation included)
    assert all((s.ci_low, s.ci_high) == (None, None) for s in one.metrics.values())
    assert one.metrics["UPOS"].f1 is not None  # the point estimate is still reported
    assert one.ci_note == ("no CI: 1 sentence(s); the bootstrap needs at least 2 "
                           "(resampling one sentence only redraws it)")
    assert rest.ci_note is None and rest.metrics["LAS"].ci_low is not None
    assert r.overall.ci_note is None and MIN_CI_SENTENCES == 2
    d = json.loads(json.dumps(r.to_dict()))
    assert d["buckets"]["single"]["ci_note"] == one.ci_note
    assert d["buckets"]["single"]["metrics"]["LAS"]["ci"] is None
    table = format_table(r)
    assert "Bucket single: 1 sentences, 20 words\n" in table
    assert f"note: {one.ci_note}" in table
    # a one-sentence file is the same case; without a bootstrap there is nothing to note
    assert score(g[0].text(), g[0].text()).overall.ci_note == one.ci_note
    assert score(g[0].text(), g[0].text(), bootstrap=0).overall.ci_note is None


def test_bootstrap_draw_protocol():
    idx = draw(7, 999, 776)
    assert idx.shape == (999, 7)
    assert np.array_equal(idx, np.random.default_rng(776).integers(0, 7, size=(999, 7)))


def test_ci_properties(gold):
    pred = perturb(gold, seed=3, rate=0.1)
    r = score(gold, pred)
    for m in METRICS:
        s = r.metrics[m]
        assert s.ci_low <= s.f1 <= s.ci_high, m
    assert r.metrics["LAS"].ci_high - r.metrics["LAS"].ci_low > 0.5
    again = score(gold, pred)
    assert again.to_dict() == r.to_dict()  # fixed seed: reproducible
    wider = score(gold, pred, confidence=0.99)
    assert wider.metrics["LAS"].ci_low <= r.metrics["LAS"].ci_low
    assert wider.metrics["LAS"].ci_high >= r.metrics["LAS"].ci_high
    other = score(gold, pred, seed=5)
    assert other.metrics["LAS"].f1 == r.metrics["LAS"].f1


def test_buckets_match_scoring_the_subsets(gold):
    pred = perturb(gold, seed=4, rate=0.1)
    g, p = parse_sentences(gold), parse_sentences(pred)
    buckets = {s.label: ("A" if i < 8 else "B") for i, s in enumerate(g[:18])}
    r = score(gold, pred, buckets=buckets)
    assert list(r.buckets) == ["(unassigned)", "A", "B"] and UNASSIGNED_BUCKET == "(unassigned)"
    for label, sl in (("A", slice(0, 8)), ("B", slice(8, 18)), (UNASSIGNED_BUCKET, slice(18, 20))):
        sub = score("".join(s.text() for s in g[sl]), "".join(s.text() for s in p[sl]))
        assert r.buckets[label].to_dict() == sub.overall.to_dict(), label
    assert sum(b.words for b in r.buckets.values()) == r.overall.words
    d = json.loads(json.dumps(r.to_dict()))
    assert d["buckets"]["A"]["sentences"] == 8
    table = format_table(r)
    assert "Bucket A: 8 sentences" in table and "LAS" in table


def test_buckets_without_sent_id_use_sentence_numbers(gold):
    bare = "\n".join(ln for ln in gold.split("\n") if not ln.startswith("#"))
    r = score(bare, bare, bootstrap=10, buckets={"1": "first", "2": "first"})
    assert r.buckets["first"].sentences == 2
    assert r.buckets[UNASSIGNED_BUCKET].sentences == 18


def test_format_table(gold):
    text = format_table(score(gold, gold, bootstrap=20))
    assert "20 sentences, 430 words" in text
    assert "UPOS      100.00  [100.00, 100.00]" in text
    assert "20 resamples, seed 776" in text


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------


def test_tokenization_mismatch_names_sentence_and_token(gold):
    g = parse_sentences(gold)
    form = column(gold, 3, 5, FORM)
    pred = edit(gold, {(3, 5, FORM): form + "ς"})
    with pytest.raises(TokenizationMismatch) as ei:
        score(gold, pred)
    e = ei.value
    assert isinstance(e, ValueError)
    assert (e.sentence, e.sentence_number, e.position) == (g[2].sent_id, 3, 5)
    assert e.gold_form == f"5 {form}" and e.pred_form == f"5 {form}ς"
    assert g[2].sent_id in str(e) and "token 5" in str(e) and form in str(e)


def test_tokenization_mismatch_missing_token_and_sentence(gold):
    g = parse_sentences(gold)
    short = list(g[1].lines[:-1])  # drop the last word of sentence 2
    pred = "".join(s.text() if s.number != 2 else "\n".join(short) + "\n\n" for s in g)
    with pytest.raises(TokenizationMismatch, match="end of sentence") as ei:
        score(gold, pred)
    assert ei.value.sentence == g[1].sent_id and ei.value.position == len(g[1].tokens)
    with pytest.raises(TokenizationMismatch, match="gold has 20 sentences, pred has 19"):
        score(gold, "".join(s.text() for s in g[:19]))


def test_tokenization_mismatch_without_sent_id(gold):
    bare = "\n".join(ln for ln in gold.split("\n") if not ln.startswith("#"))
    pred = edit(bare, {(2, 1, FORM): "X"})
    with pytest.raises(TokenizationMismatch, match=r"sentence 2 at token 1"):
        score(bare, pred)


def test_invalid_input(gold):
    pred = edit(gold, {(1, 2, HEAD): "2"})  # self-loop: cycle
    with pytest.raises(ConlluFormatError, match="pred sentence"):
        score(gold, pred)
    with pytest.raises(ConlluFormatError, match="10 tab-separated"):
        score(gold, gold.replace("\t_\t_\n", "\t_\n", 1))
    with pytest.raises(ConlluFormatError):
        score("", "")
    with pytest.raises(ValueError):
        score(gold, gold, bootstrap=-1)
    with pytest.raises(ValueError):
        score(gold, gold, confidence=1.0)


def test_crlf_and_bom_accepted(gold):
    r = score("\ufeff" + gold.replace("\n", "\r\n"), gold, bootstrap=0)
    assert r.f1("LAS") == 100.0


# ---------------------------------------------------------------------------------------------
# integration: the whole real UD Perseus test fold
# ---------------------------------------------------------------------------------------------


@pytest.mark.integration
def test_full_perseus_test_fold():
    gold = pinned_source_file("ud-perseus", "grc_perseus-ud-test.conllu").decode("utf-8")

    t0 = time.perf_counter()
    r = score(gold, gold)  # 999 resamples, seed 776
    elapsed = time.perf_counter() - t0
    print(f"\nfull UD Perseus test fold self-score, 999 resamples: {elapsed:.2f} s")
    assert (r.overall.sentences, r.overall.words) == (1306, 20959)  # seed 001's fold size
    for m in METRICS:
        assert (r.metrics[m].f1, r.metrics[m].ci_low, r.metrics[m].ci_high) == (100, 100, 100)

    # Aggregated per-sentence counts reproduce the evaluator's own figures on a real fold.
    pred = perturb(gold, seed=7, rate=0.08)
    counts = sentence_counts(parse_sentences(gold), parse_sentences(pred))
    ev = evaluate_whole(gold, pred)
    rp = score(gold, pred)
    for j, m in enumerate(METRICS):
        assert tuple(counts.sum(axis=0)[j]) == (ev[m].correct, ev[m].gold_total,
                                                ev[m].system_total), m
        assert rp.metrics[m].f1 == 100 * ev[m].f1, m
        assert rp.metrics[m].ci_low <= rp.metrics[m].f1 <= rp.metrics[m].ci_high, m
    assert rp.metrics["XPOS"].f1 == 100.0  # XPOS is never perturbed
    assert rp.metrics["LAS"].ci_low < rp.metrics["LAS"].f1 < rp.metrics["LAS"].ci_high
    # The seeded corruption (seed 7, rate 0.08) of this fold gives known figures: LAS 18,358 of
    # 20,959 words (87.59), percentile CI of 999 resamples (seed 776) 87.13-88.06; CLAS counts
    # 13,483 gold and 13,496 predicted content words (some DEPRELs turned function <-> content).
    assert (ev["LAS"].correct, ev["LAS"].gold_total, ev["LAS"].system_total) == (18358, 20959, 20959)
    assert rp.metrics["LAS"].f1 == pytest.approx(100 * 18358 / 20959)
    assert (round(rp.metrics["LAS"].ci_low, 2), round(rp.metrics["LAS"].ci_high, 2)) == (87.13, 88.06)
    assert (ev["CLAS"].correct, ev["CLAS"].gold_total, ev["CLAS"].system_total) == (11933, 13483, 13496)
