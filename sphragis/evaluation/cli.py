"""``sphragis eval``: the evaluation toolkit of seed 001 on the command line (SPEC §12).

Sub-commands:

* ``sphragis eval overlap [--json PATH]``: print the UD Perseus → AGDT resolution and the
  training-side overlap with the evaluation folds, read from the warehouse
  (``SPHRAGIS_WAREHOUSE``, opened read-only), and write the training-exclusion manifest
  (default ``reports/overlap_manifest.json``; see :mod:`sphragis.evaluation.overlap`).
* ``sphragis eval score --gold INPUT --pred INPUT [--bootstrap 999] [--seed 776]
  [--confidence 0.95] [--by genre|author] [--json PATH]``: CoNLL 2018 F1 with gold
  tokenization and percentile-bootstrap CIs (:mod:`sphragis.evaluation.score`); ``--by`` buckets
  the sentences with the works registry through the warehouse (:func:`folds.bucket_map`, or
  :func:`annotations.bucket_map` for a warehouse annotation).
* ``sphragis eval drift --a INPUT --b INPUT [--top 10] [--scheme-types conversion|observed|LIST]
  [--per-type gold|union] [--protocol seed001] [--json PATH]``: convention decomposition of ``b``
  against ``a`` (:mod:`sphragis.evaluation.drift`), under named definitions recorded in the
  report.
* ``sphragis eval render NAME [--out PATH]``: write a warehouse annotation as CoNLL-U.

* ``sphragis eval folds``: list the named gold folds (:func:`fold_listing`).

An INPUT is an existing CoNLL-U file path; a named UD fold (``ud_perseus-test``,
``ud_proiel-dev``, …; :func:`folds.known_folds`), read as published from ``SPHRAGIS_DATA``; a
protocol fold (``papygreek``, ``verse``; :func:`folds.protocol_folds`) as ``sphragis folds`` wrote
it (``dist/folds/<fold>/<fold>.conllu``); or a
warehouse annotation ``VIEW:SELECTION`` (``native:agdt@ud_perseus-test``,
``source:ud_perseus-test``, ``published:ud_proiel-test``; :mod:`sphragis.evaluation.annotations`,
rendered from the read-only warehouse). When both inputs of ``score`` or ``drift`` are warehouse
annotations they are compared on their common sentences (matched by sent_id, in the first
input's order); every sentence left out, by rendering or by that alignment, is printed with its
reason and listed in the JSON under ``skipped``. The evaluator calls the lemma metric
``Lemmas``; output here labels it ``Lemma`` (seed 001's name). Errors (tokenization mismatch,
unknown fold or annotation, missing file, missing warehouse) are raised as
``ValueError``/``OSError``/``RuntimeError`` with one clear message, which ``sphragis.cli.main``
prints before exiting with status 1.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from ..files import write_json, write_text_atomic
from ..queries import open_warehouse

DEFAULT_MANIFEST = Path("reports") / "overlap_manifest.json"

_LEMMAS_ROW = re.compile(r"^Lemmas(?=\s)", re.MULTILINE)


def _rename_lemma(metrics: dict[str, Any]) -> dict[str, Any]:
    """Same dict with the evaluator's ``Lemmas`` key renamed ``Lemma`` (order kept)."""
    return {("Lemma" if k == "Lemmas" else k): v for k, v in metrics.items()}


def score_json(result, *, gold: str, pred: str, by: str | None) -> dict[str, Any]:
    """``ScoreResult.to_dict()`` with ``Lemma`` labels and the inputs recorded."""
    doc = result.to_dict()
    doc["metrics"] = _rename_lemma(doc["metrics"])
    for b in doc["buckets"].values():
        b["metrics"] = _rename_lemma(b["metrics"])
    return {"gold": gold, "pred": pred, "by": by, **doc}


def score_table(result) -> str:
    """``ScoreResult.format_table()`` with the ``Lemmas`` rows labelled ``Lemma``."""
    return _LEMMAS_ROW.sub("Lemma ", result.format_table())


# ------------------------------------------------------------------------------------------
# inputs: files, named UD folds, warehouse annotations
# ------------------------------------------------------------------------------------------


@dataclass
class _Input:
    """A resolved command-line input: ``label`` (as given), CoNLL-U ``text`` and, for a
    warehouse annotation, the rendered :class:`annotations.Annotation`."""

    label: str
    text: str
    annotation: Any = None


def _is_annotation(spec: str) -> bool:
    from .annotations import is_annotation_name

    return is_annotation_name(spec) and not Path(spec).expanduser().is_file()


def _resolve_inputs(specs: list[tuple[str, str]], *, need_warehouse: bool = False
                    ) -> tuple[list[_Input], list[dict[str, str]], duckdb.DuckDBPyConnection | None]:
    """Resolve ``[(spec, role), ...]`` (role = ``--gold`` etc.) to :class:`_Input` objects.

    Annotation names are parsed first (so a bad name fails before the warehouse is opened), then
    the warehouse is opened read-only when an annotation is involved or ``need_warehouse``. When
    exactly two inputs are both annotations they are aligned (:func:`annotations.align`).

    Returns:
        ``(inputs, dropped, con)``: ``dropped`` lists the sentences the alignment left out
        (``side`` is the role); ``con`` is the open connection or ``None`` (the caller closes it).
    """
    from . import annotations, folds

    parsed: dict[int, Any] = {}
    for k, (spec, role) in enumerate(specs):
        if _is_annotation(spec):
            try:
                parsed[k] = annotations.parse_name(spec)
            except ValueError as exc:
                raise ValueError(f"{role}: {exc}") from None
    con = open_warehouse() if parsed or need_warehouse else None
    try:
        inputs: list[_Input] = []
        for k, (spec, role) in enumerate(specs):
            if k in parsed:
                ann = annotations.render(con, parsed[k])
                inputs.append(_Input(spec, ann.text, ann))
            else:
                label, text = folds.read_conllu(con, spec, role)
                inputs.append(_Input(label, text))
        dropped: list[dict[str, str]] = []
        if len(inputs) == 2 and all(i.annotation is not None for i in inputs):
            a, b, dropped = annotations.align(inputs[0].annotation, inputs[1].annotation)
            roles = {"a": specs[0][1], "b": specs[1][1]}
            dropped = [{**d, "side": roles[d["side"]]} for d in dropped]
            inputs = [_Input(inputs[0].label, a.text, a), _Input(inputs[1].label, b.text, b)]
    except BaseException:
        if con is not None:
            con.close()
        raise
    return inputs, dropped, con


_MAX_LISTED = 20


def _describe_inputs(pairs: list[tuple[str, _Input]], dropped: list[dict[str, str]]) -> list[str]:
    """Header lines: ``role: label`` (plus the rendering counts of warehouse annotations), then
    every skipped sentence with its reason (at most ``_MAX_LISTED`` per input)."""
    lines = []
    for role, inp in pairs:
        ann = inp.annotation
        if ann is None:
            lines.append(f"{role}: {inp.label}")
            continue
        lines.append(f"{role}: {inp.label} (warehouse: {len(ann.sentences)} sentences, {ann.words} words; "
                     f"{len(ann.skipped)} skipped)")
    if dropped:
        lines.append(f"compared on the common sentences: {len(dropped)} sentence(s) left out")
    for role, inp in pairs:
        ann = inp.annotation
        if ann is None or not ann.skipped:
            continue
        lines.append(f"skipped from {role} {inp.label}:")
        lines += [f"  {s.sent_id}: {s.reason}" for s in ann.skipped[:_MAX_LISTED]]
        if len(ann.skipped) > _MAX_LISTED:
            lines.append(f"  ... and {len(ann.skipped) - _MAX_LISTED} more (all in --json)")
    return lines


def _skipped_json(pairs: list[tuple[str, _Input]]) -> dict[str, list[dict[str, str]]]:
    return {role: [s.to_dict() for s in inp.annotation.skipped]
            for role, inp in pairs if inp.annotation is not None}


def _print_and_write(pairs: list[tuple[str, _Input]], dropped: list[dict[str, str]], report: str, *,
                     json_path: str | None, json_doc: Callable[[], dict[str, Any]], what: str,
                     header_note: str = "") -> None:
    """The output of a two-input command (``score``, ``drift``): the input header
    (:func:`_describe_inputs`, then ``header_note``) and ``report`` on stdout; with ``json_path``,
    ``json_doc()`` written there as JSON, with ``skipped`` (:func:`_skipped_json`) added when an
    input is a warehouse annotation, and ``<what> written to <path>`` on stderr."""
    print("\n".join(_describe_inputs(pairs, dropped)) + header_note)
    print(report)
    if json_path:
        doc = json_doc()
        if any(i.annotation is not None for _, i in pairs):
            doc["skipped"] = _skipped_json(pairs)
        write_json(json_path, doc)
        print(f"{what} written to {json_path}", file=sys.stderr)


# ------------------------------------------------------------------------------------------
# sub-commands
# ------------------------------------------------------------------------------------------


def _cmd_overlap(args: argparse.Namespace) -> int:
    from . import overlap

    t0 = time.perf_counter()
    with open_warehouse() as con:
        doc = overlap.write_manifest(con, args.json)
    print(overlap.format_summary(doc["summary"]))
    if doc["unresolved"]:
        print(f"\nUnresolved UD Perseus sentences: {len(doc['unresolved'])}")
        for r in doc["unresolved"]:
            print(f"  {r['fold']:<5} {r['sent_id']}: {r['reason']}")
    else:
        print("\nUnresolved UD Perseus sentences: none")
    counts = ", ".join(f"{name} {sum(f['exclude_counts'].values())}" for name, f in doc["folds"].items())
    print(f"\nexclusion manifest ({counts} records) written to {args.json} "
          f"in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    return 0


def _cmd_score(args: argparse.Namespace) -> int:
    from . import annotations, folds
    from .score import parse_sentences, score

    (gold, pred), dropped, con = _resolve_inputs([(args.gold, "--gold"), (args.pred, "--pred")],
                                                 need_warehouse=bool(args.by))
    try:
        buckets = None
        if args.by:
            if gold.annotation is not None:
                buckets = annotations.bucket_map(con, gold.annotation, args.by)
            elif gold.label in folds.known_folds() or gold.label in folds.protocol_folds():
                buckets = folds.bucket_map(con, args.by, fold=gold.label)
            else:
                ids = [s.sent_id for s in parse_sentences(gold.text, side="gold") if s.sent_id]
                buckets = folds.bucket_map(con, args.by, sent_ids=ids)
    finally:
        if con is not None:
            con.close()
    result = score(gold.text, pred.text, bootstrap=args.bootstrap, seed=args.seed,
                   confidence=args.confidence, buckets=buckets)
    _print_and_write([("gold", gold), ("pred", pred)], dropped, score_table(result), json_path=args.json,
                     json_doc=lambda: score_json(result, gold=gold.label, pred=pred.label, by=args.by),
                     what="scores", header_note=f"\nbuckets: {args.by}" if args.by else "")
    return 0


def drift_choices(args: argparse.Namespace) -> dict[str, Any]:
    """``scheme_types``/``per_type``/``protocol`` for :func:`drift.decompose` from the options.

    ``--protocol`` fills the options not given with the protocol's choices; an option given with
    a different value is an error (``ValueError`` naming both). Without ``--protocol`` the
    defaults are ``conversion`` and ``gold``. Scheme lists are checked here, before any input is
    read.
    """
    from .definitions import PROTOCOLS
    from .drift import parse_scheme_types

    chosen = {"scheme_types": args.scheme_types, "per_type": args.per_type}
    if args.protocol:
        fixed = PROTOCOLS[args.protocol]
        for key, value in chosen.items():
            if value is not None and value != fixed[key]:
                flag = "--" + key.replace("_", "-")
                raise ValueError(f"--protocol {args.protocol} sets {flag} {fixed[key]}; "
                                 f"got {flag} {value}")
            chosen[key] = fixed[key]
    chosen["scheme_types"] = chosen["scheme_types"] or "conversion"
    chosen["per_type"] = chosen["per_type"] or "gold"
    parse_scheme_types(chosen["scheme_types"])
    return {**chosen, "protocol": args.protocol}


def _cmd_drift(args: argparse.Namespace) -> int:
    from .drift import decompose

    choices = drift_choices(args)
    (a, b), dropped, con = _resolve_inputs([(args.a, "--a"), (args.b, "--b")])
    if con is not None:
        con.close()
    result = decompose(a.text, b.text, top=args.top, **choices)
    _print_and_write([("a", a), ("b", b)], dropped, result.format_report(), json_path=args.json,
                     json_doc=lambda: {"a": a.label, "b": b.label, **result.to_dict()},  # starts with "definitions"
                     what="decomposition")
    return 0


def fold_listing() -> list[dict[str, str]]:
    """Every named gold fold the evaluation commands accept (``sphragis eval folds``): the UD
    dev/test folds as published (:func:`folds.known_folds`) and the protocol's further folds as
    ``sphragis folds`` writes them (:func:`folds.protocol_folds`), each with its kind, file and
    whether the file is there (``sentences`` counted from its ``# sent_id`` lines)."""
    from .. import config
    from . import folds

    settings = config.settings()
    rows = [{"fold": f.name, "kind": "UD fold, as published", "file": str(settings.data / f.snapshot / f.file)}
            for f in folds.known_folds().values()]
    rows += [{"fold": name, "kind": f"protocol fold ({f['project']}; sphragis folds)",
              "file": str(folds.protocol_fold_dir(settings) / name / f"{name}.conllu")}
             for name, f in folds.protocol_folds().items()]
    for r in rows:
        path = Path(r["file"])
        if path.is_file():
            with path.open(encoding="utf-8") as fh:
                r["sentences"] = str(sum(1 for line in fh if line.startswith("# sent_id")))
        else:
            r["sentences"] = "not written" if "protocol" in r["kind"] else "not fetched"
    return rows


def _cmd_folds(args: argparse.Namespace) -> int:
    rows = fold_listing()
    width = {k: max(len(k), *(len(r[k]) for r in rows)) for k in ("fold", "kind", "sentences")}
    print("  ".join(k.ljust(width[k]) for k in ("fold", "kind", "sentences")) + "  file")
    for r in rows:
        print("  ".join(r[k].ljust(width[k]) for k in ("fold", "kind", "sentences")) + "  " + r["file"])
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    from . import annotations

    an = annotations.parse_name(args.name)
    t0 = time.perf_counter()
    with open_warehouse() as con:
        ann = annotations.render(con, an)
    if args.out:
        write_text_atomic(args.out, ann.text)
    else:
        sys.stdout.write(ann.text)
    info = [f"{args.name}: {len(ann.sentences)} sentences, {ann.words} words, {len(ann.skipped)} skipped "
            f"({time.perf_counter() - t0:.1f}s)" + (f"; written to {args.out}" if args.out else "")]
    info += [f"  skipped {s.sent_id}: {s.reason}" for s in ann.skipped]
    print("\n".join(info), file=sys.stderr)
    return 0


def _probability(text: str) -> float:
    x = float(text)
    if not 0.0 < x < 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive), got {text}")
    return x


def _non_negative(text: str) -> int:
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return n


def add_bootstrap_options(parser: argparse.ArgumentParser, unit: str = "sentences") -> None:
    """Add ``--bootstrap``, ``--seed`` and ``--confidence`` (the percentile bootstrap of
    :mod:`.bootstrap`, defaults from :mod:`.definitions`) to ``parser``; ``unit`` names what is
    resampled in the help text. Used by ``sphragis eval score`` and ``sphragis score``."""
    from .definitions import CONFIDENCE, RESAMPLES, SEED

    parser.add_argument("--bootstrap", type=_non_negative, default=RESAMPLES,
                        help=f"bootstrap resamples of the {unit} (default {RESAMPLES}; 0 = no CI)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"resampling seed (default {SEED})")
    parser.add_argument("--confidence", type=_probability, default=CONFIDENCE,
                        help=f"confidence level of the CI (default {CONFIDENCE})")


_INPUT_HELP = ("a CoNLL-U file path, a named fold (a UD fold such as ud_perseus-test, or a protocol fold of "
               "`sphragis folds` such as papygreek or verse: `sphragis eval folds` lists them) or a warehouse "
               "annotation VIEW:SELECTION (e.g. native:agdt@ud_perseus-test; see `sphragis eval --help`)")


def _add_two_input_command(sub: argparse._SubParsersAction, name: str, *, inputs: dict[str, str],
                           help: str, description: str) -> argparse.ArgumentParser:
    """Add the sub-command ``name`` taking two required INPUTs (``inputs``: option -> what it is,
    e.g. ``{"--gold": "gold"}``), each a file, a named fold or a warehouse annotation (the names
    are explained in the epilog); returns its parser for the options of its own."""
    from .annotations import NAMES_HELP

    p = sub.add_parser(name, help=help, description=description,
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=NAMES_HELP)
    for option, what in inputs.items():
        p.add_argument(option, required=True, metavar="INPUT", help=f"{what}: {_INPUT_HELP}")
    return p


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``eval`` (with ``overlap``, ``score``, ``drift``, ``folds``, ``render``) to the ``sphragis`` CLI."""
    from .annotations import NAMES_HELP
    from .definitions import CONVERSION_SEED, MIN_CI_SENTENCES, PER_TYPE, PROTOCOLS, conversion_seed_rows

    try:
        conversion = " ".join(sorted(t for _, t in conversion_seed_rows()))
    except (OSError, ValueError) as exc:  # shown in --help; running drift raises it again
        conversion = f"unavailable: {exc}"

    raw = argparse.RawDescriptionHelpFormatter
    e = subparsers.add_parser(
        "eval", help="evaluation toolkit: overlap manifests, scoring, convention drift, named folds (SPEC §12)",
        formatter_class=raw, epilog=NAMES_HELP,
        description="The evaluation toolkit of the benchmark protocol (seed 001). Named folds are the\n"
        "UD dev/test files as published, read from SPHRAGIS_DATA, and the protocol's documentary and verse\n"
        "folds as `sphragis folds` writes them (`sphragis eval folds` lists them); the warehouse is\n"
        "SPHRAGIS_WAREHOUSE.")
    sub = e.add_subparsers(dest="eval_command", required=True)

    o = sub.add_parser(
        "overlap", help="resolve UD Perseus dev/test to AGDT and write the training-exclusion manifest",
        description="Print how every UD Perseus dev/test sentence resolves to its AGDT source sentence "
        "(NFC form-sequence equality, punctuation included) and how many AGDT, Gorman, Pedalion and "
        "Harrington sentences overlap the UD Perseus and UD PROIEL evaluation folds, from the "
        "warehouse marts; write the exclusion manifest as JSON.")
    o.add_argument("--json", default=str(DEFAULT_MANIFEST), metavar="PATH",
                   help=f"where to write the manifest (default: {DEFAULT_MANIFEST})")
    o.set_defaults(func=_cmd_overlap)

    s = _add_two_input_command(
        sub, "score", inputs={"--gold": "gold", "--pred": "prediction"},
        help="CoNLL 2018 F1 of a prediction against a gold fold, with bootstrap CIs",
        description="Score predicted CoNLL-U against gold with gold tokenization: UPOS, XPOS, UFeats,\n"
        "AllTags, Lemma, UAS, LAS, CLAS, MLAS, BLEX as CoNLL 2018 F1 (udtools.udeval), with\n"
        "percentile-bootstrap confidence intervals over sentences. Tokenization must match the gold\n"
        "exactly; the first difference is reported. A resample with no gold and no system items\n"
        "for a metric scores 0, as the CoNLL 2018 evaluator scores it (kept, not dropped); a\n"
        f"bucket of fewer than {MIN_CI_SENTENCES} sentences gets no CI and a note.")
    add_bootstrap_options(s)
    s.add_argument("--by", choices=["genre", "author"],
                   help="also score per genre or per author of the works registry (needs the warehouse)")
    s.add_argument("--json", metavar="PATH", help="also write the scores as JSON")
    s.set_defaults(func=_cmd_score)

    d = _add_two_input_command(
        sub, "drift", inputs={"--a": "annotation a", "--b": "annotation b"},
        help="decompose the disagreement between two annotations of the same sentences",
        description="Convention decomposition of annotation b against annotation a (a as gold): the\n"
        "UFeats gap split into scheme-absent feature types and disagreement inside shared types\n"
        "(per-type agreement), the LAS gap into attachment and label-only errors, and the top\n"
        "relation and UPOS confusion pairs. Both must have the same tokenization. The definitions\n"
        "used are named in the report and in the JSON 'definitions' block.")
    d.add_argument("--top", type=_non_negative, default=10, help="confusion pairs to list (default 10)")
    d.add_argument(
        "--scheme-types", metavar="conversion|observed|LIST",
        help="which FEATS types b's scheme has; a type of a outside it is scheme-absent. "
        f"conversion (default): the fixed list the AGDT->UD conversion emits ({conversion}; "
        f"seed sql/seeds/{CONVERSION_SEED}.csv); "
        "observed: the types b uses anywhere in its file; LIST: comma-separated types "
        "(e.g. Case,Number). conversion is the default because it does not depend on the prediction "
        "(an empty or sparse b cannot turn every type scheme-absent, and two predictions split their "
        "gaps alike) and it is seed 001's definition; use observed for two annotations neither of "
        "which follows the AGDT conversion")
    d.add_argument(
        "--per-type", choices=list(PER_TYPE),
        help="denominator of per-type agreement. gold (default): words where a has the type "
        "(per-type recall, seed 001's definition); union: words where a or b has it (b's additions "
        "count against it). Both counts are always reported, so either figure can be recomputed")
    protocols = "; ".join(f"{name}: {p['description']} (--scheme-types {p['scheme_types']} "
                          f"--per-type {p['per_type']})" for name, p in PROTOCOLS.items())
    d.add_argument(
        "--protocol", choices=list(PROTOCOLS),
        help=f"set every definition to a reference protocol's choices at once; {protocols}; an "
        "explicit option that contradicts it is an error")
    d.add_argument("--json", metavar="PATH", help="also write the decomposition as JSON")
    d.set_defaults(func=_cmd_drift)

    ls = sub.add_parser(
        "folds", help="list the named gold folds: UD Perseus, PROIEL, PTNK dev/test and the protocol's folds",
        description="List every fold a --gold, --pred, --a or --b can name: the UD dev/test files as published "
        "(read from SPHRAGIS_DATA) and the protocol's further folds (PapyGreek, verse) as `sphragis folds` "
        "writes them, with the file each is read from and its sentences.")
    ls.set_defaults(func=_cmd_folds)

    r = sub.add_parser(
        "render", help="write a warehouse annotation (VIEW:SELECTION) as CoNLL-U",
        formatter_class=raw, epilog=NAMES_HELP,
        description="Render an annotation the warehouse holds as CoNLL-U (to stdout, or --out);\n"
        "counts and skipped sentences with their reasons go to stderr.")
    r.add_argument("name", metavar="VIEW:SELECTION", help="e.g. native:agdt@ud_perseus-test")
    r.add_argument("--out", "-o", metavar="PATH", help="write to PATH instead of stdout")
    r.set_defaults(func=_cmd_render)
