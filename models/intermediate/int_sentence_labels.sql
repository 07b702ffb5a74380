-- What the works registry and the splits say of every upstream sentence, the per-sentence columns
-- of the analyst's token table (tokens): its curated author, work and genre and the registry
-- decision (SPEC §6, int_curated_sentences), whether it is the parse published for its dedup
-- group (int_eligible_sentences), and whether, and in which configurations and splits, it is
-- published (SPEC §7–§8: the record is one of the source_records of a published row).
-- Grain: one row per sentence_uid of int_curated_sentences.
with

curated as (select * from {{ ref('int_curated_sentences') }}),

eligible as (select * from {{ ref('int_eligible_sentences') }}),

eligible_records as (select * from {{ ref('int_eligible_records') }}),

split_rows as (select * from {{ ref('mart_split_rows') }}),

benchmark_rows as (select * from {{ ref('mart_benchmark_rows') }}),

-- every (config, split) whose rows hold the sentence's dedup group
published_in as (
    select
        s.dedup_key,
        list(
            distinct struct_pack(config := b.config, split := b.split)
            order by struct_pack(config := b.config, split := b.split)
        ) as published_in
    from benchmark_rows as b,
        unnest(coalesce(b.constituent_ids, [b.id])) as u (row_id)
    inner join split_rows as s on b.track = s.track and u.row_id = s.row_id
    group by s.dedup_key
),

final as (
    select
        c.sentence_uid,
        c.author,
        c.work,
        c.work_id,
        c.genre,
        c.decision,
        c.is_retained,
        e.sentence_uid is not null as is_chosen_parse,
        pi.published_in is not null as is_published,
        coalesce(pi.published_in, []) as published_in
    from curated as c
    left join eligible as e on c.sentence_uid = e.sentence_uid
    left join eligible_records as er on c.sentence_uid = er.sentence_uid
    left join published_in as pi on er.dedup_key = pi.dedup_key
)

select * from final
