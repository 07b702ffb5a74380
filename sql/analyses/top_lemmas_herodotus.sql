-- The 20 most frequent lemmas of Herodotus, each sentence counted once (table `tokens`: every kept
-- sentence in its chosen parse; its published tokens leave punctuation out).
select
    lemma,
    count(*) as n_tokens
from tokens
where author = 'Herodotus' and lemma is not null
group by lemma
order by n_tokens desc, lemma asc
limit 20
