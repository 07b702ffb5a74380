-- Dedup key groups over retained units (SPEC §7): how many records, projects and distinct
-- retained author labels each key has, and whether the group is eligible, an author conflict
-- (omitted), or has an empty key (no letters at all). Grain: one row per dedup_key.
with

units as (select * from {{ ref('int_units') }}),

curated as (select * from {{ ref('int_curated_sentences') }}),

retained as (
    select
        u.dedup_key,
        u.sentence_uid,
        u.project,
        c.author
    from units as u
    inner join curated as c on u.sentence_uid = c.sentence_uid
    where c.is_retained
),

grouped as (
    select
        dedup_key,
        count(*) as n_records,
        count(distinct project) as n_projects,
        count(distinct author) as n_authors,
        list(distinct author order by author) as authors
    from retained
    group by dedup_key
),

final as (
    select
        *,
        case
            when dedup_key = '' then 'empty_key'
            when n_authors > 1 then 'author_conflict'
            else 'eligible'
        end as status
    from grouped
)

select * from final
