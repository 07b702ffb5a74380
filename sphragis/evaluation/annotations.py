"""Named annotations rendered from the warehouse as CoNLL-U (SPEC §4, §5, §12).

The evaluation commands take, besides CoNLL-U files and the published UD fold files, annotations
that the warehouse holds. A name is ``VIEW:SELECTION``.

VIEW (which columns; every view drops punctuation tokens and artificial/placeholder nodes and
uses the repaired, re-indexed trees of ``int_tree_tokens``):

* ``published``: the model-facing units of ``int_units`` (SPEC §5): lowercased NFC forms and
  lemmas, published UPOS / FEATS / DEPREL, XPOS ``_``. Any project.
* ``native``: the native conversion of an AGDT-lineage tree to CoNLL-U (SPEC §3–§4): FORM =
  the source form (NFC, surrounding whitespace trimmed, inner runs one space), LEMMA = the
  normalized lemma, UPOS = the tag-derived UPOS (§3 mapping), XPOS = the normalized 9-position
  tag, FEATS = ``feats_full`` (tag-derived, before the §5 type filter), HEAD from
  ``int_tree_tokens``, DEPREL = the pre-merge UD v2 relation ``deprel_ud``. Projects agdt,
  gorman, pedalion, harrington.
* ``source``: a UD treebank's own annotation (pre-merge): FORM as for ``native``, LEMMA = the
  normalized lemma (so lemma comparisons do not count case or homograph digits), UPOS =
  ``upos_source`` and XPOS = the upstream XPOS (for UD Perseus its AGDT tag) and FEATS =
  ``feats_source``, all verbatim, HEAD from ``int_tree_tokens`` (punctuation removed and its
  dependents re-attached exactly as for the native trees), DEPREL = ``deprel_ud`` (the UD
  DEPREL; a second root after the repair becomes ``parataxis``). Projects ud_perseus, ud_proiel,
  ud_ptnk.

SELECTION (which sentences, in which order, with which ``# sent_id``):

* ``<fold>`` (``ud_perseus-test``, ``ud_proiel-dev``, …; :func:`folds.known_folds`): the
  sentences of that UD file in file order; sent_id = the upstream ``# sent_id``.
* ``<project>`` (``agdt``, ``gorman``, ``ud_proiel``, …): every sentence of the project, by file
  path then position; sent_id = the upstream sent_id (UD projects) or ``<file name>@<sentence
  id>`` (XML projects, the UD Perseus convention; unique per project).
* ``agdt@ud_perseus-test`` / ``agdt@ud_perseus-dev``: the AGDT sentences that
  ``mart_ud_perseus_agdt_overlap`` resolves the fold's sentences to, in the fold's order, each
  with the UD sentence's sent_id, so that it aligns with ``<view>:ud_perseus-<split>``.

Every sentence carries ``# sent_id``, ``# source_sentence = <project>:<path>#<upstream id>`` and
``# text`` (its forms joined by single spaces). Sentences are *skipped*, each with a reason,
rather than rendered wrongly: an unresolved overlap sentence (the mart's reason), a sentence with
no surviving token, and, for ``agdt@…``, a sentence whose rendered forms differ from those of the
UD sentence it stands for (same view; the reason names the first differing token) — scoring and
drift need identical tokenization. :func:`align` restricts two annotations to their common
sentences.

All selection, joins and the token lines are SQL over the warehouse (read-only); Python only joins
the returned lines.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from .. import config
from ..queries import query, require_relations
from . import folds

__all__ = [
    "NAMES_HELP",
    "OVERLAP_SELECTIONS",
    "VIEWS",
    "Annotation",
    "AnnotationName",
    "RenderedSentence",
    "Skipped",
    "align",
    "bucket_map",
    "is_annotation_name",
    "parse_name",
    "render",
    "render_selection",
]

#: View → one-line description (the help text lists them in this order).
VIEWS: dict[str, str] = {
    "published": "model-facing units (SPEC §5): lowercased forms/lemmas, published UPOS/FEATS/DEPREL, XPOS _",
    "native": "AGDT-lineage native conversion (SPEC §3-§4): tag-derived UPOS, XPOS = normalized "
              "tag, FEATS = feats_full, DEPREL = pre-merge deprel_ud",
    "source": "a UD treebank's own pre-merge annotation: UPOS, XPOS, FEATS verbatim, DEPREL = "
              "deprel_ud, normalized lemma",
}
#: ``<project>@<fold>`` selections defined by an overlap mart: (project, fold) → fold split.
OVERLAP_SELECTIONS: dict[tuple[str, str], str] = {
    ("agdt", "ud_perseus-dev"): "dev",
    ("agdt", "ud_perseus-test"): "test",
}

NAMES_HELP = """\
Annotation names (for --gold, --pred, --a, --b and `render`): besides a CoNLL-U file path, a
named UD fold file (ud_perseus-test, ud_proiel-dev, ... read as published from SPHRAGIS_DATA) and a
protocol fold written by `sphragis folds` (papygreek, verse; `sphragis eval folds` lists them all),
an annotation held by the warehouse (SPHRAGIS_WAREHOUSE, read-only) is named VIEW:SELECTION.
  VIEW       published  model-facing units (SPEC §5), any project
             native     AGDT-lineage native conversion (SPEC §3-§4): tag-derived UPOS, XPOS =
                        normalized AGDT tag, FEATS = feats_full, DEPREL = pre-merge UD v2 relation;
                        agdt, gorman, pedalion, harrington
             source     UD treebank's own pre-merge UPOS/XPOS/FEATS (verbatim) and DEPREL,
                        normalized lemma; ud_perseus, ud_proiel, ud_ptnk
             (all views: punctuation and artificial nodes removed, repaired trees of SPEC §4)
  SELECTION  <fold>               a UD fold's sentences in file order (e.g. ud_perseus-test)
             <project>            all sentences of a project (e.g. gorman)
             agdt@ud_perseus-dev  the AGDT sentences the UD Perseus fold resolves to
             agdt@ud_perseus-test (mart_ud_perseus_agdt_overlap), in fold order, UD sent_ids
Examples: native:agdt@ud_perseus-test, source:ud_perseus-test, published:ud_proiel-test.
Sentences that cannot be rendered with the fold's tokenization are skipped with a reason; when
both inputs are warehouse annotations they are compared on their common sentences (by sent_id),
and what was left out is reported."""


# --------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnnotationName:
    """A parsed annotation name: ``view``, ``project`` (whose sentences are rendered), ``fold``
    (a :class:`folds.Fold`: the fold selected, or the fold an overlap selection follows; ``None``
    for a whole project) and ``via_overlap`` (``True`` for ``<project>@<fold>``)."""

    name: str
    view: str
    project: str
    fold: folds.Fold | None
    via_overlap: bool


def _projects() -> dict[str, str]:
    """Project key → snapshot format (``conllu`` for UD projects), in pin-list order."""
    out: dict[str, str] = {}
    for snap in config.snapshots():
        out.setdefault(snap["project"], snap.get("format", ""))
    return out


def is_annotation_name(spec: str) -> bool:
    """True when ``spec`` has the form ``VIEW:…`` with a known VIEW (the rest is checked by
    :func:`parse_name`)."""
    view, sep, _ = spec.partition(":")
    return bool(sep) and view in VIEWS


def parse_name(name: str) -> AnnotationName:
    """Parse ``VIEW:SELECTION`` (see the module docstring and :data:`NAMES_HELP`).

    Raises:
        ValueError: unknown view, project or fold; an overlap selection other than those of
            :data:`OVERLAP_SELECTIONS`; a view not defined for the project (``native`` of a UD
            project, ``source`` of an XML project). The message says what is accepted.
    """
    view, sep, selection = name.partition(":")
    if not sep or view not in VIEWS:
        raise ValueError(f"{name!r} is not an annotation name: expected VIEW:SELECTION with VIEW one of "
                         f"{', '.join(VIEWS)}")
    projects = _projects()
    known = folds.known_folds()
    fold: folds.Fold | None = None
    via = False
    if "@" in selection:
        project, _, fold_name = selection.partition("@")
        if (project, fold_name) not in OVERLAP_SELECTIONS:
            raise ValueError(f"{name}: overlap selection {selection!r} is not defined; defined: "
                             + ", ".join(f"{p}@{f}" for p, f in OVERLAP_SELECTIONS))
        fold, via = known[fold_name], True
    elif selection in known:
        fold = known[selection]
        project = fold.project
    elif selection in projects:
        project = selection
    else:
        raise ValueError(f"{name}: unknown selection {selection!r}; give a fold ({', '.join(known)}), "
                         f"a project ({', '.join(projects)}) or "
                         + " / ".join(f"{p}@{f}" for p, f in OVERLAP_SELECTIONS))
    is_ud = projects[project] == "conllu"
    if view == "native" and is_ud:
        raise ValueError(f"{name}: the native view is the conversion of AGDT-lineage trees; {project} is a "
                         f"UD treebank (use source:{selection})")
    if view == "source" and not is_ud:
        raise ValueError(f"{name}: the source view is a UD treebank's own annotation; {project} is an "
                         f"AGDT-lineage treebank (use native:{selection})")
    return AnnotationName(name, view, project, fold, via)


# --------------------------------------------------------------------------------------------
# SQL: the named queries annotation_* of sql/queries (sphragis.queries)
# --------------------------------------------------------------------------------------------

# A selection query returns one row per wanted sentence with its order, sent_id, the UD sentence
# it must match token for token (overlap selections only) and a reason when it cannot be rendered.
# The rendering runs it, the token query of the view and annotation_render over relations
# registered on the connection under fixed names (a read-only warehouse connection can register).
_REGISTERED = ("annotation_selection", "annotation_tree", "annotation_overrides", "annotation_wanted",
               "annotation_tokens")


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RenderedSentence:
    """One rendered sentence: ``sent_id``, the warehouse ``sentence_uid`` whose annotation it is,
    ``block`` (its CoNLL-U lines: comments then token lines, no trailing blank line) and
    ``words`` (token lines)."""

    sent_id: str
    sentence_uid: int
    block: str
    words: int


@dataclass(frozen=True)
class Skipped:
    """A selected sentence that was not rendered: ``sent_id`` and ``reason``."""

    sent_id: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"sent_id": self.sent_id, "reason": self.reason}


@dataclass(frozen=True)
class Annotation:
    """A rendered annotation: its ``name``, the ``sentences`` in order and the ``skipped`` ones
    (in selection order)."""

    name: str
    sentences: tuple[RenderedSentence, ...]
    skipped: tuple[Skipped, ...]

    @property
    def text(self) -> str:
        """The CoNLL-U text: every sentence block followed by a blank line ("" if empty)."""
        return "".join(s.block + "\n\n" for s in self.sentences)

    @property
    def sent_ids(self) -> tuple[str, ...]:
        return tuple(s.sent_id for s in self.sentences)

    @property
    def words(self) -> int:
        return sum(s.words for s in self.sentences)


def _selection(an: AnnotationName) -> tuple[str, dict[str, object]]:
    """The selection query of a parsed name and its parameters."""
    if an.via_overlap:
        return query("annotation_select_overlap"), {"split": OVERLAP_SELECTIONS[(an.project, an.fold.name)]}
    if an.fold is not None:
        return query("annotation_select_fold"), {"project": an.project, "path": an.fold.file}
    return query("annotation_select_project"), {"project": an.project, "is_ud": _projects()[an.project] == "conllu"}


_REQUIRED = ("int_sentences", "int_tree_tokens", "int_tokens", "int_token_morphology", "int_units")


def render(con: duckdb.DuckDBPyConnection, name: str | AnnotationName) -> Annotation:
    """Render a named annotation from the warehouse (see the module docstring).

    Args:
        con: warehouse connection (read-only is enough) with the intermediate models and, for an
            overlap selection, ``mart_ud_perseus_agdt_overlap``.
        name: ``VIEW:SELECTION`` or a parsed :class:`AnnotationName`.

    Returns:
        :class:`Annotation`: sentences in selection order (10-column CoNLL-U token lines,
        ``_`` for empty values, MISC and DEPS ``_``), and the skipped sentences with reasons.

    Raises:
        ValueError: a bad name (:func:`parse_name`); the selection matches no sentence at all.
        RuntimeError: the warehouse lacks a model the rendering reads.
    """
    an = parse_name(name) if isinstance(name, str) else name
    require_relations(con, _REQUIRED + (("mart_ud_perseus_agdt_overlap",) if an.via_overlap else ()),
                      where=f"{an.name}: the warehouse")
    selection, params = _selection(an)
    return _rendered(con, an.name, selection, params, an.view)


def render_selection(con: duckdb.DuckDBPyConnection, name: str, selection: str, params: dict[str, object], *,
                     view: str = "native", tree: str = "int_tree_tokens",
                     source_key: str = "source_sentence",
                     overrides: tuple[str, dict[str, object]] | None = None) -> Annotation:
    """Render the sentences a caller's selection query picks, with a view's columns (the same
    rendering as :func:`render`; used by the training treebank).

    Args:
        con: warehouse connection with the models :func:`render` reads and ``tree``.
        name: the annotation's name (messages, :attr:`Annotation.name`).
        selection: SQL returning ``sentence_uid``, ``sent_id``, ``counterpart_uid`` (BIGINT or
            NULL), ``reason`` (VARCHAR, NULL unless the sentence is to be skipped) and ``ord``.
        params: its named parameters.
        view: ``native``, ``source`` or ``published`` (:data:`VIEWS`).
        tree: the tree model giving HEAD, DEPREL and the tokens (``int_tree_tokens``, or
            ``int_native_tree_tokens`` to keep punctuation).
        source_key: the comment key of the provenance line (``# <source_key> = project:path#id``).
        overrides: ``(query, params)`` returning ``sentence_uid``, ``token_pos``, ``form``,
            ``lemma``: the FORM and LEMMA the ``native`` and ``source`` views write for those
            tokens instead of the warehouse's (an evaluation fold's reading text and repaired
            lemma; a NULL keeps the warehouse's value). None: no override.

    Returns / Raises: as :func:`render`.
    """
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; choose one of {', '.join(VIEWS)}")
    return _rendered(con, name, selection, params, view, tree, source_key, overrides)


def _rendered(con: duckdb.DuckDBPyConnection, name: str, selection: str, params: dict[str, object], view: str,
              tree: str = "int_tree_tokens", source_key: str = "source_sentence",
              overrides: tuple[str, dict[str, object]] | None = None) -> Annotation:
    """Run ``selection`` (with ``params``), the token query of ``view`` over ``tree`` (with the
    ``overrides``, if any) and ``annotation_render`` (with ``source_key``); the registered
    relations are dropped afterwards."""
    override_sql, override_params = overrides or (query("annotation_no_overrides"), {})
    try:
        con.register("annotation_selection", con.sql(selection, params=params))
        con.register("annotation_tree", con.table(tree))
        con.register("annotation_overrides", con.sql(override_sql, params=override_params or None))
        con.register("annotation_wanted", con.sql(query("annotation_wanted")))
        if view == "published":
            tokens = con.sql(query("annotation_published_tokens"))
        else:
            tokens = con.sql(query("annotation_tree_tokens"), params={"view": view})
        con.register("annotation_tokens", tokens)
        rows = con.execute(query("annotation_render"), {"source_key": source_key}).fetchall()
    finally:
        for name_ in _REGISTERED:
            con.unregister(name_)
    if not rows:
        raise ValueError(f"{name}: the warehouse holds no sentence of this selection")
    sentences = tuple(RenderedSentence(sid, uid, block, n) for _, sid, uid, reason, block, n in rows
                      if reason is None)
    skipped = tuple(Skipped(sid, reason) for _, sid, _, reason, _, _ in rows if reason is not None)
    return Annotation(name, sentences, skipped)


def align(a: Annotation, b: Annotation) -> tuple[Annotation, Annotation, list[dict[str, str]]]:
    """Restrict two annotations to the sentences both rendered, matched by sent_id, in ``a``'s order.

    Returns:
        ``(a', b', dropped)``: the restricted annotations (each keeps its own ``skipped`` list
        plus the sentences dropped here) and the dropped sentences as dicts ``side`` (``a`` or
        ``b``: the annotation that had the sentence), ``sent_id`` and ``reason``.

    Raises:
        ValueError: a sent_id occurs twice within one annotation (sentences cannot be matched).
    """
    for ann in (a, b):
        ids = ann.sent_ids
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise ValueError(f"{ann.name}: sent_id {dup!r} occurs more than once; cannot align by sent_id")
    b_by_id = {s.sent_id: s for s in b.sentences}
    a_ids = set(a.sent_ids)
    b_reasons = {s.sent_id: s.reason for s in b.skipped}
    a_reasons = {s.sent_id: s.reason for s in a.skipped}
    dropped: list[dict[str, str]] = []
    for s in a.sentences:
        if s.sent_id not in b_by_id:
            why = b_reasons.get(s.sent_id, "not selected")
            dropped.append({"side": "a", "sent_id": s.sent_id, "reason": f"not in {b.name}: {why}"})
    for s in b.sentences:
        if s.sent_id not in a_ids:
            why = a_reasons.get(s.sent_id, "not selected")
            dropped.append({"side": "b", "sent_id": s.sent_id, "reason": f"not in {a.name}: {why}"})
    keep_a = tuple(s for s in a.sentences if s.sent_id in b_by_id)
    keep_b = tuple(b_by_id[s.sent_id] for s in keep_a)
    extra = {"a": [], "b": []}
    for d in dropped:
        extra[d["side"]].append(Skipped(d["sent_id"], d["reason"]))
    return (Annotation(a.name, keep_a, a.skipped + tuple(extra["a"])),
            Annotation(b.name, keep_b, b.skipped + tuple(extra["b"])), dropped)


def bucket_map(con: duckdb.DuckDBPyConnection, annotation: Annotation, by: str) -> dict[str, str]:
    """``sent_id → genre`` or ``sent_id → author`` of a rendered annotation (SPEC §6, §12).

    Labels come from ``int_curated_sentences`` (the curated per-sentence attribution, whatever
    the decision) of each sentence's own ``sentence_uid``.

    Raises:
        ValueError: ``by`` is not one of :data:`folds.BUCKET_COLUMNS`.
    """
    if by not in folds.BUCKET_COLUMNS:
        raise ValueError(f"unknown bucket {by!r}; choose one of {', '.join(folds.BUCKET_COLUMNS)}")
    column = folds.BUCKET_COLUMNS[by]
    uids = [s.sentence_uid for s in annotation.sentences]
    rows = con.execute(
        f"select sentence_uid, {column} from int_curated_sentences "
        f"where sentence_uid in (select unnest(?)) and {column} is not null", [uids]).fetchall()
    label = dict(rows)
    return {s.sent_id: label[s.sentence_uid] for s in annotation.sentences if s.sentence_uid in label}
