"""Options and selection of the training treebank (``sphragis export-treebank``; seed 001
"Leakage controls"): the options checked and turned into model variables (:func:`variables`), and
the selection models re-run with them when they differ from the build's defaults (:func:`select`).
The export itself is :mod:`sphragis.export.treebank`.
"""

from __future__ import annotations

import duckdb

from sphragis import config, state
from sphragis.queries import require_relations

#: The models that hold the selection (re-run with the options as variables when they differ
#: from the build's defaults), in dependency order.
MODELS = ("int_training_candidates", "mart_training_treebank_exclusions", "mart_training_treebank",
          "mart_training_treebank_counts", "mart_training_treebank_perseus_sources", "mart_training_treebank_works")


class TreebankError(RuntimeError):
    """Bad options, a missing warehouse model, or a written sentence that fails validation (the
    message names the file and the sentence)."""


def variables(**options: object) -> dict[str, object]:
    """The model variables for the given options (unset options keep the defaults).

    Keyword args: the keys of :data:`sphragis.config.TRAINING_TREEBANK_VARS` (``treebank_projects``,
    ``treebank_folds``, ``treebank_exclude_perseus_sources``, ``treebank_exclude_fold_text``,
    ``treebank_exclude_fold_works``, ``treebank_work_folds``, ``treebank_dedup``,
    ``treebank_curation``, ``treebank_dev_percent``).

    Raises:
        TreebankError: an unknown option, project or fold, or a dev percentage outside 0-50.
    """
    from sphragis.evaluation import folds

    unknown = set(options) - set(config.TRAINING_TREEBANK_VARS)
    if unknown:
        raise TreebankError(f"unknown treebank option(s): {', '.join(sorted(unknown))}")
    out = {**config.TRAINING_TREEBANK_VARS, **{k: v for k, v in options.items() if v is not None}}
    projects, known_folds = list(config.training_projects()), folds.known_folds()
    bad = [p for p in out["treebank_projects"] if p not in projects]
    if bad or not out["treebank_projects"]:
        raise TreebankError(f"projects {bad or '(none)'}: choose among {', '.join(projects)}")
    for key in ("treebank_folds", "treebank_work_folds"):
        bad = [f for f in out[key] if f not in known_folds]
        if bad:
            raise TreebankError(f"unknown fold(s) {', '.join(bad)}; known folds: {', '.join(known_folds)}")
    pct = out["treebank_dev_percent"]
    if not isinstance(pct, int) or not 0 <= pct <= 50:
        raise TreebankError(f"dev percentage {pct!r}: give an integer from 0 to 50")
    out["treebank_projects"] = [p for p in projects if p in out["treebank_projects"]]
    return out


def select(con: duckdb.DuckDBPyConnection, variables_: dict[str, object]) -> None:
    """Make the selection models reflect ``variables_`` on ``con``.

    With the build's defaults the built tables are used as they are; otherwise the model files of
    :data:`MODELS` are rendered with ``variables_`` and created as temporary tables that shadow
    the built ones for this connection (a read-only connection is enough).

    Raises:
        TreebankError: the warehouse lacks a model the selection reads.
    """
    from sphragis import runner, udfs

    require_relations(con, ("int_native_tree_tokens", "int_tokens", "int_token_morphology", "int_sentences", *MODELS),
                      TreebankError)
    if {k: variables_[k] for k in config.TRAINING_TREEBANK_VARS} == config.TRAINING_TREEBANK_VARS:
        return
    project = runner.load_project()
    udfs.register(con)
    for path in [*config.MACROS_DIR.glob("*.sql"), *(p for p in config.MODELS_DIR.rglob("*.sql") if p.stem in MODELS)]:
        state.note_read(path)  # rendered below: inputs of this export (sphragis.state)
    for name in MODELS:
        sql = runner.render(project, name, variables_)
        try:
            con.execute(f"create or replace temp table {name} as\n{sql}")
        except duckdb.Error as exc:
            raise TreebankError(f"model {name} failed with the given options: {exc}") from exc
