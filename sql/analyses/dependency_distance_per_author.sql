-- Mean dependency distance |i - head| per author, the root left out (published trees of retained
-- sentences; table `tokens`).
select
    author,
    count(*) as n_tokens,
    round(avg(abs(i - head)), 3) as mean_distance
from tokens
where is_retained and is_published_token and head <> 0
group by author
order by author asc
