-- AGDT files holding the resolved source sentences of UD Perseus dev/test, with how many each
-- (sphragis eval overlap, SPEC §12).
with

perseus_overlap as (select * from {{ ref('mart_ud_perseus_agdt_overlap') }}),

final as (
    select
        agdt_path,
        count(*) as n
    from perseus_overlap
    where resolved
    group by agdt_path
)

select * from final
