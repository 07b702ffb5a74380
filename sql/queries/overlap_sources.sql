-- Snapshot and commit of every project the overlap manifest involves: the training side
-- (syntax_scheme 'AGDT' in the seed source_priority) and the evaluation-fold projects (seed
-- evaluation_folds).
select distinct
    project,
    snapshot,
    commit
from raw_files
where
    project in (
        select source_priority.project
        from source_priority
        where source_priority.syntax_scheme = 'AGDT'
    )
    or project in (select evaluation_folds.fold_project from evaluation_folds)
order by project, snapshot
