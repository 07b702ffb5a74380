-- The records of the eligible dedup groups (SPEC §7): every retained unit (int_curated_sentences)
-- whose dedup key group is eligible (int_dedup_groups: a non-empty key with one retained author
-- label), with its curated author, work and genre. int_eligible_sentences chooses one parse per
-- group among these; mart_published_tokens publishes the tokens of every one of them.
-- Grain: one row per sentence_uid.
with

units as (select * from {{ ref('int_units') }}),

curated as (select * from {{ ref('int_curated_sentences') }}),

groups as (select * from {{ ref('int_dedup_groups') }}),

final as (
    select
        u.sentence_uid,
        u.project,
        u.dedup_key,
        c.author,
        c.work,
        c.work_id,
        c.genre
    from units as u
    inner join curated as c on u.sentence_uid = c.sentence_uid
    inner join groups as g on u.dedup_key = g.dedup_key
    where c.is_retained and g.status = 'eligible'
)

select * from final
