-- The 20 most frequent lemmas of Herodotus, punctuation left out (every project's records of
-- retained sentences; table `tokens`).
select
    lemma,
    count(*) as n_tokens
from tokens
where author = 'Herodotus' and is_retained and not is_punctuation and lemma is not null
group by lemma
order by n_tokens desc, lemma asc
limit 20
