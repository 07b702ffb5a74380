-- Share of tokens per published DEPREL in each project (% of the published tokens of retained
-- sentences; table `tokens`).
select
    project,
    deprel,
    count(*) as n_tokens,
    round(100 * count(*) / sum(count(*)) over (partition by project), 2) as pct
from tokens
where is_retained and is_published_token
group by project, deprel
order by project asc, n_tokens desc, deprel asc
