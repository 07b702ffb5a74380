-- Sentences per evaluation fold ('<fold_project>-<fold>', from the UD file name), for every
-- project of the seed evaluation_folds (sphragis eval overlap, SPEC §12).
with

sentences as (select * from {{ ref('int_sentences') }}),

folds as (select * from {{ ref('evaluation_folds') }}),

final as (
    select
        project || '-' || regexp_extract(path, '-ud-(dev|test|train)\.conllu$', 1) as fold_name,
        count(*) as sentences
    from sentences
    where project in (select folds.fold_project from folds)
    group by all
)

select * from final
