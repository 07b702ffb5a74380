-- Sentences where a VERB has two or more `obj` dependents, per project (published trees of
-- retained sentences; table `tokens`, dependents counted by relation).
select
    project,
    count(distinct sentence_uid) as n_sentences
from tokens
where is_retained and upos = 'VERB' and dependents_by_deprel['obj'] >= 2
group by project
order by project asc
