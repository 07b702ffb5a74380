-- Deduplication groups per status (SPEC §7): eligible, author_conflict (omitted because their
-- sentences disagree on the author; build report `omitted_for_author_conflict_groups`), empty_key.
with

dedup_groups as (select * from {{ ref('int_dedup_groups') }}),

final as (
    select
        status,
        count(*) as groups
    from dedup_groups
    group by status
)

select * from final
