"""CoNLL-U text as the evaluation toolkit reads it (SPEC §12): sentence blocks with their ids and
token/word lines (:func:`parse_sentences`), the gold-tokenization check that runs before the
evaluator (:func:`check_tokenization`), and the two input errors of the toolkit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_SENT_ID = re.compile(r"^#\s*sent_id\s*=\s*(.*?)\s*$")


class TokenizationMismatch(ValueError):
    """Gold and prediction differ in tokenization (gold tokenization is required).

    Attributes: ``sentence`` (sent_id, or the 1-based sentence number as a string),
    ``sentence_number`` (1-based), ``position`` (1-based index of the first differing token/word
    line within the sentence, ``None`` when the files differ in sentence count),
    ``gold_form`` / ``pred_form`` (``"ID FORM"`` of the differing line, or ``None`` when that
    side has no line there).
    """

    def __init__(self, message: str, *, sentence: str, sentence_number: int,
                 position: int | None, gold_form: str | None, pred_form: str | None) -> None:
        super().__init__(message)
        self.sentence = sentence
        self.sentence_number = sentence_number
        self.position = position
        self.gold_form = gold_form
        self.pred_form = pred_form


class ConlluFormatError(ValueError):
    """CoNLL-U text that the evaluator cannot load (wraps ``udtools.udeval.UDError``)."""


# --------------------------------------------------------------------------------------------
# CoNLL-U sentence blocks
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    """One CoNLL-U sentence block.

    ``number`` is 1-based; ``sent_id`` the ``# sent_id`` value or ``None``; ``lines`` the block's
    lines (comments included, no trailing blank line); ``tokens`` the ``(ID, FORM)`` pairs of its
    token and word lines in order (multi-word token ranges included, empty nodes excluded): the
    sequence that must be equal under gold tokenization.
    """

    number: int
    sent_id: str | None
    lines: tuple[str, ...]
    tokens: tuple[tuple[str, str], ...]

    @property
    def label(self) -> str:
        """Identifier used in messages and bucket look-ups: sent_id, else the sentence number."""
        return self.sent_id if self.sent_id is not None else str(self.number)

    def text(self) -> str:
        """The block as CoNLL-U text terminated by a blank line (evaluator-loadable)."""
        return "\n".join(self.lines) + "\n\n"

    def describe(self) -> str:
        """Human-readable name: ``sentence 'ID' (#n)`` or ``sentence n``."""
        if self.sent_id is not None:
            return f"sentence {self.sent_id!r} (#{self.number})"
        return f"sentence {self.number}"


def parse_sentences(text: str, *, side: str = "input") -> list[Sentence]:
    """Split CoNLL-U text into :class:`Sentence` blocks.

    Blank (whitespace-only) lines separate sentences; comment lines before a sentence belong to
    it (a comment-only block is attached to the next sentence, or dropped at the end of the
    text). A leading BOM and ``\\r\\n`` line ends are accepted.

    Raises :class:`ConlluFormatError` when a token line does not have 10 tab-separated columns
    (``side`` names the file in the message).
    """
    text = text.lstrip("\ufeff")
    blocks: list[list[str]] = []
    current: list[str] = []
    pending_comments: list[str] = []
    for raw in text.split("\n"):
        line = raw.rstrip("\r")
        if line.strip():
            current.append(line)
            continue
        if current:
            if any(not ln.startswith("#") for ln in current):
                blocks.append(pending_comments + current)
                pending_comments = []
            else:
                pending_comments.extend(current)
            current = []
    if current:
        if any(not ln.startswith("#") for ln in current):
            blocks.append(pending_comments + current)

    sentences: list[Sentence] = []
    for number, block in enumerate(blocks, start=1):
        sent_id = None
        tokens: list[tuple[str, str]] = []
        for line in block:
            if line.startswith("#"):
                m = _SENT_ID.match(line)
                if m and sent_id is None:
                    sent_id = m.group(1)
                continue
            cols = line.split("\t")
            if len(cols) != 10:
                where = f"sentence {sent_id!r} (#{number})" if sent_id else f"sentence {number}"
                raise ConlluFormatError(
                    f"{side}: {where}: line does not have 10 tab-separated columns: {line!r}")
            if "." in cols[0]:
                continue  # empty node: ignored by the evaluator for basic-tree metrics
            tokens.append((cols[0], cols[1]))
        sentences.append(Sentence(number, sent_id, tuple(block), tuple(tokens)))
    return sentences


def _quote(token: str | None) -> str:
    return "<end of sentence>" if token is None else f"'{token}'"


def check_tokenization(gold: Sequence[Sentence], pred: Sequence[Sentence]) -> None:
    """Require identical tokenization: same sentence count, same ``(ID, FORM)`` lines per sentence.

    Raises :class:`TokenizationMismatch` at the first differing sentence, naming it (sent_id of
    the gold sentence if present, else its 1-based number), the 1-based position of the first
    differing token/word line and both sides' ``"ID FORM"`` there.
    """
    for g, p in zip(gold, pred):
        if g.tokens == p.tokens:
            continue
        for pos in range(max(len(g.tokens), len(p.tokens))):
            gt = g.tokens[pos] if pos < len(g.tokens) else None
            pt = p.tokens[pos] if pos < len(p.tokens) else None
            if gt != pt:
                gf = " ".join(gt) if gt else None
                pf = " ".join(pt) if pt else None
                raise TokenizationMismatch(
                    f"tokenization differs in {g.describe()} at token {pos + 1}: "
                    f"gold {_quote(gf)} vs pred {_quote(pf)} "
                    "(gold tokenization is required)",
                    sentence=g.label, sentence_number=g.number, position=pos + 1,
                    gold_form=gf, pred_form=pf)
    if len(gold) != len(pred):
        n = min(len(gold), len(pred)) + 1
        extra = (gold if len(gold) > len(pred) else pred)[n - 1]
        side = "gold" if len(gold) > len(pred) else "pred"
        raise TokenizationMismatch(
            f"gold has {len(gold)} sentences, pred has {len(pred)}: {side} {extra.describe()} "
            "has no counterpart (gold tokenization is required)",
            sentence=extra.label, sentence_number=n, position=None,
            gold_form=None, pred_form=None)
