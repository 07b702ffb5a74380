-- Mean dependency distance |i - head| per author, the root left out, each sentence counted once
-- (table `tokens`: every kept sentence in its chosen parse).
select
    author,
    count(*) as n_tokens,
    round(avg(abs(i - head)), 3) as mean_distance
from tokens
where head <> 0
group by author
order by author asc
