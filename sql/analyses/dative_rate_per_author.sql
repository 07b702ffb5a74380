-- Per author and project: words, sentences, and the % of nouns in the dative (published tokens of
-- retained sentences; table `tokens`, FEATS as a MAP).
select
    author,
    project,
    count(*) as n_tokens,
    count(distinct sentence_uid) as n_sentences,
    round(100 * avg((feats_map['Case'] = 'Dat')::int) filter (where upos = 'NOUN'), 2) as dative_noun_pct
from tokens
where is_retained and is_published_token
group by author, project
order by author asc, project asc
