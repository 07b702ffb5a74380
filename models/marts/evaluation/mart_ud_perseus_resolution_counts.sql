-- UD Perseus dev/test → AGDT resolution counts (sphragis eval overlap; SPEC §12, seed 001): per
-- fold and in total, the sentences, how many resolved (uniquely or by sent_id), unresolved, and
-- whose sent_id names the resolved AGDT sentence. One row per fold, then 'total'.
with

perseus_overlap as (select * from {{ ref('mart_ud_perseus_agdt_overlap') }}),

final as (
    select
        coalesce(fold, 'total') as fold,
        count(*) as sentences,
        count(*) filter (where resolved) as resolved,
        count(*) filter (where resolution = 'unique form match') as "unique",
        count(*) filter (where resolution = 'form match disambiguated by sent_id') as by_sent_id,
        count(*) filter (where not resolved) as unresolved,
        count(*) filter (where hint_agrees) as sent_id_agrees
    from perseus_overlap
    group by rollup (fold)
)

select * from final
