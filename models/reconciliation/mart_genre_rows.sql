-- Published sentence_1 rows per genre (prose, verse) and split (the dataset card's "Languages").
-- Grain: one row per (genre, split).
with

split_rows as (select * from {{ ref('mart_split_rows') }}),

final as (
    select
        genre,
        split,
        count(*) as rows
    from split_rows
    where track = 'main'
    group by genre, split
)

select * from final
