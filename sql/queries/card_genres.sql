-- Published rows per genre, summed over configurations and splits (dataset card, build report
-- `genres`).
select
    genre,
    sum(rows) as rows
from mart_genre_rows
group by genre
order by genre
