-- Snapshot and commit of every project the overlap manifest involves (sphragis eval overlap,
-- SPEC §12): the training side (syntax_scheme 'AGDT' in the seed source_priority) and the
-- evaluation-fold projects (seed evaluation_folds).
with

files as (select * from {{ ref('stg_raw__files') }}),

priority as (select * from {{ ref('source_priority') }}),

folds as (select * from {{ ref('evaluation_folds') }}),

final as (
    select distinct
        project,
        snapshot,
        commit
    from files
    where
        project in (
            select priority.project from priority
            where priority.syntax_scheme = 'AGDT'
        )
        or project in (select folds.fold_project from folds)
)

select * from final
