-- Sentences and tokens of the training treebank per work (sphragis export-treebank manifest
-- `selected_works`).
with

selected as (select * from {{ ref('mart_training_treebank') }}),

final as (
    select
        project,
        work_id,
        author,
        work,
        count(*) as sentences,
        sum(n_tokens)::bigint as tokens
    from selected
    group by all
)

select * from final
