-- Per author and project: words, sentences, and the % of nouns in the dative, in each project's
-- own parse of the kept sentences (table `tokens_all_parses`, published tokens; FEATS as a MAP).
select
    author,
    project,
    count(*) as n_tokens,
    count(distinct sentence_key) as n_sentences,
    round(100 * avg((feats_map['Case'] = 'Dat')::int) filter (where upos = 'NOUN'), 2) as dative_noun_pct
from tokens_all_parses
where kept_sentence_key is not null and is_published_token
group by author, project
order by author asc, project asc
