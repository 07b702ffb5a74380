-- UD Perseus dev/test → AGDT resolution counts (sphragis eval overlap; SPEC §12, seed 001):
-- per fold and in total, the sentences, how many resolved (uniquely or by sent_id), unresolved,
-- and whose sent_id names the resolved AGDT sentence. Grain: one row per fold, then 'total'.
select
    coalesce(fold, 'total') as fold,
    count(*) as sentences,
    count(*) filter (where resolved) as resolved,
    count(*) filter (where resolution = 'unique form match') as "unique",
    count(*) filter (where resolution = 'form match disambiguated by sent_id') as by_sent_id,
    count(*) filter (where not resolved) as unresolved,
    count(*) filter (where hint_agrees) as sent_id_agrees
from mart_ud_perseus_agdt_overlap
group by rollup (fold)
order by fold is null, fold
