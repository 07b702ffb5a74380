-- Published rows per genre, summed over configurations and splits (dataset card, build report
-- `genres`).
with

genre_rows as (select * from {{ ref('mart_genre_rows') }}),

final as (
    select
        genre,
        sum(rows) as rows
    from genre_rows
    group by genre
)

select * from final
