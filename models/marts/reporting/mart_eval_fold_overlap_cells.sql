-- Distinct training-side sentences overlapping the evaluation folds, per project and fold
-- (fold_name '<fold_project>-<fold>') and per project over all folds (fold_name 'any_fold'):
-- "all" ignoring punctuation, forms_identical with punctuation (sphragis eval overlap, SPEC §12).
with

fold_overlap as (select * from {{ ref('mart_eval_fold_overlap') }}),

final as (
    select
        project,
        coalesce(fold_project || '-' || fold, 'any_fold') as fold_name,
        count(distinct sentence_uid) as "all",
        count(distinct sentence_uid) filter (where forms_identical) as forms_identical
    from fold_overlap
    group by grouping sets ((project, fold_project, fold), (project))
)

select * from final
