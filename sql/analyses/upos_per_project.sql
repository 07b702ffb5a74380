-- Tokens per UPOS in each project, punctuation included as PUNCT (every token of every sentence;
-- table `tokens`).
select
    project,
    upos,
    count(*) as n_tokens
from tokens
group by project, upos
order by project asc, n_tokens desc, upos asc
