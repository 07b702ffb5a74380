-- UD Perseus dev/test sentences and their AGDT sources against the training treebank (sphragis
-- export-treebank manifest; seed 001: 2,443 sentences resolved to AGDT): per fold, the
-- fold sentences, those resolved to an AGDT sentence, and how many of those AGDT sentences the
-- treebank excludes / writes.
with

perseus_overlap as (select * from {{ ref('mart_ud_perseus_agdt_overlap') }}),

exclusions as (select * from {{ ref('mart_training_treebank_exclusions') }}),

selected as (select * from {{ ref('mart_training_treebank') }}),

final as (
    select
        o.fold,
        count(*) as fold_sentences,
        count(*) filter (where o.resolved) as resolved_to_agdt,
        count(*) filter (where o.resolved and e.sentence_uid is not null) as resolved_excluded,
        count(*) filter (where o.resolved and s.sentence_uid is not null) as resolved_written
    from perseus_overlap as o
    left join exclusions as e on o.agdt_sentence_uid = e.sentence_uid
    left join selected as s on o.agdt_sentence_uid = s.sentence_uid
    group by o.fold
)

select * from final
