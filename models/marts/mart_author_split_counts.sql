-- Published atomic rows per track, author and split (SPEC §8; seed 000 "Sentences per author
-- label"). Grain: one row per (track, author, split); every retained author has all three splits.
with

split_rows as (select * from {{ ref('mart_split_rows') }}),

final as (
    select
        track,
        author,
        split,
        count(*) as rows
    from split_rows
    group by track, author, split
)

select * from final
