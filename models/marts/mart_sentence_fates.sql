-- What happened to every upstream sentence (SPEC §2, §6, §7): one row per raw sentence plus one
-- per sentence rejected at ingest, with the stage that removed it or 'eligible'; a sentence of a
-- project the benchmark does not draw from (registry in_benchmark) is 'outside_benchmark'. The
-- build report's counts are aggregates of this table (mart_fate_counts, the benchmark's projects).
with

sentences as (select * from {{ ref('int_sentences') }}),

curated as (select * from {{ ref('int_curated_sentences') }}),

units as (select * from {{ ref('int_units') }}),

groups as (select * from {{ ref('int_dedup_groups') }}),

eligible as (select * from {{ ref('int_eligible_sentences') }}),

rejects as (select * from {{ ref('stg_raw__ingest_rejects') }}),

ingested as (
    select
        s.sentence_uid,
        s.project,
        s.path,
        s.sentence_pos,
        s.upstream_sentence_id,
        c.author,
        c.work,
        c.decision,
        u.dedup_key,
        -- a project outside the benchmark first (none of the stages below applies to it); then curation:
        -- its exclusions are the build report's table of reasons (mart_curation_exclusions), so a
        -- sentence it retained that has no published token is counted after it
        case
            when not c.in_benchmark then 'outside_benchmark'
            when not c.is_retained then 'excluded_' || c.decision
            when u.sentence_uid is null then 'no_published_tokens'
            when g.status = 'author_conflict' then 'author_conflict'
            when g.status = 'empty_key' then 'empty_dedup_key'
            when e.sentence_uid is null then 'duplicate'
            else 'eligible'
        end as fate
    from sentences as s
    inner join curated as c on s.sentence_uid = c.sentence_uid
    left join units as u on s.sentence_uid = u.sentence_uid
    left join groups as g on u.dedup_key = g.dedup_key
    left join eligible as e on s.sentence_uid = e.sentence_uid
),

rejected as (
    select
        cast(null as bigint) as sentence_uid,
        r.project,
        r.path,
        r.sentence_pos,
        r.upstream_sentence_id,
        cast(null as varchar) as author,
        cast(null as varchar) as work,
        cast(null as varchar) as decision,
        cast(null as varchar) as dedup_key,
        'rejected_at_ingest' as fate
    from rejects as r
    where r.sentence_pos is not null and r.project is not null
),

final as (
    select * from ingested
    union all
    select * from rejected
)

select * from final
