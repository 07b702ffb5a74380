-- Snapshot and commit of every project the overlap manifest involves (sphragis eval overlap,
-- SPEC §12): the training side (in_training_treebank in the project registry) and the
-- evaluation-fold projects (seed evaluation_folds).
with

files as (select * from {{ ref('stg_raw__files') }}),

registry as (select * from {{ ref('projects') }}),

folds as (select * from {{ ref('evaluation_folds') }}),

final as (
    select distinct
        project,
        snapshot,
        commit
    from files
    where
        project in (
            select registry.project from registry
            where registry.in_training_treebank
        )
        or project in (select folds.fold_project from folds)
)

select * from final
