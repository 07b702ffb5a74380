-- Sentences and tokens of the training treebank per work (manifest `works`, issue 18).
select
    project,
    work_id,
    author,
    work,
    count(*) as sentences,
    sum(n_tokens)::bigint as tokens
from mart_training_treebank
group by all
order by project, work_id nulls last, work
