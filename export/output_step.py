"""One shape for the steps that write an output folder from the warehouse: the training treebank
(:mod:`sphragis.export.treebank`) and the protocol's evaluation folds (:mod:`sphragis.export.folds`).

Both are incremental and atomic as the export is (SPEC §13):

* :func:`begin` opens the warehouse read-only, removes the folders killed runs left beside the
  output (:func:`sphragis.build.remove_stale_builds`) and compares what the last run read with what
  it is now (:mod:`sphragis.state`; the state is ``<out>.state/<name>.json``): nothing changed and
  the outputs as they were written means :attr:`Step.up_to_date`.
* :func:`writing` holds the output's lock, hands the step a recording connection and a new folder
  beside the output, and, once the step's body returned, swaps the new folder in whole
  (:func:`sphragis.files.replace_dir`) and saves what the step read; a failure or a kill leaves the
  previous output as it was.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from sphragis import state
from sphragis.files import replace_dir, restore_dir

from .treebank_options import TreebankError


@dataclass
class Step:
    """An output step under way: its output folder ``out`` and output ``kind``, the step's
    ``module`` (its code, recorded with what it read), the read-only warehouse connection ``con``
    (the caller closes it), the state ``store``, the build manifest ``built``, the digests
    ``at_start`` of what the last run read, the inputs that ``changed`` and the step's
    ``options``."""

    out: Path
    kind: str
    module: str
    con: duckdb.DuckDBPyConnection
    store: state.Store
    built: dict
    at_start: dict[str, str]
    changed: list[str]
    options: dict
    up_to_date: bool

    def changes(self) -> dict[str, list[str]]:
        """``{"changed": [...]}`` naming what changed since the last run, or ``{}`` when there is
        nothing to compare (no state, ``--full``)."""
        return {"changed": self.changed} if self.changed not in state.NOTHING_TO_COMPARE else {}


def begin(out: Path, kind: str, module: str, warehouse: Path, options: dict, *, full: bool = False) -> Step:
    """Open the step writing ``out`` (see the module docstring).

    Args:
        out: the output folder (already claimed: :func:`sphragis.files.claim_output_dir`).
        kind: the output kind, also the name of the step's state.
        module: the step's module (e.g. ``sphragis.export.folds``).
        warehouse: the DuckDB warehouse, opened read-only.
        options: the step's options (JSON values); other options than the last run's are a change.
        full: redo the step whatever its state says.
    """
    from sphragis import runner
    from sphragis.build import remove_stale_builds

    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        store = state.Store(out, kind)
        doc = store.load()
        remove_stale_builds(out)  # folders left by killed runs, also when this one has nothing to do
        built = runner.read_manifest(con)  # the build's manifest: the fingerprints of the tables read
        at_start, changed = state.check(doc, con, built)  # with --full too: the digests before it
    except BaseException:
        con.close()
        raise
    if full:
        changed = ["--full"]
    if doc.get("reads", {}).get("variables") not in (None, options):
        changed = sorted(set(changed) | {"variables"})
    up_to_date = not changed and state.intact(out, doc.get("outputs", {}))
    return Step(out, kind, module, con, store, built, at_start, changed, options, up_to_date)


@contextlib.contextmanager
def writing(step: Step) -> Iterator[tuple[state.RecordingConnection, Path]]:
    """Hold ``step.out``'s lock and yield ``(recording connection, new folder)``; when the body
    returns, swap the new folder in whole and save what the step read (its module's closure, the
    tables the connection recorded, its options).

    Raises:
        sphragis.build.BuildLocked: another run writes into ``step.out``.
    """
    from sphragis.build import build_lock

    recording = state.RecordingConnection(step.con)
    step.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = step.out.with_name(f"{step.out.name}.building-{os.getpid()}")
    try:
        with build_lock(step.out):
            restore_dir(step.out)
            tmp.mkdir()
            yield recording, tmp
            replace_dir(tmp, step.out, step.kind)
            reads = state.reads((step.module,), tables=recording.tables, variables=step.options)
            step.store.save({"reads": reads,
                             "digests": state.settle(step.at_start, state.digests(reads, step.con, step.built)),
                             "outputs": state.stamps(step.out)})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def write_rendered(ann, path: Path, checks) -> None:
    """Write a rendered annotation (:class:`sphragis.evaluation.annotations.Annotation`) to ``path``
    and start the loaders and the validator on it (``checks``:
    :class:`sphragis.export.treebank_checks.Checks`).

    Raises:
        TreebankError: a selected sentence could not be rendered (the first one is named).
    """
    if ann.skipped:
        s = ann.skipped[0]
        raise TreebankError(f"{ann.name}: {len(ann.skipped)} selected sentence(s) could not be rendered, "
                            f"e.g. {s.sent_id}: {s.reason}")
    path.write_text(ann.text, encoding="utf-8")
    if ann.sentences:
        checks.add(path, ann.sent_ids)  # the loaders and the validator start on it in the pool
