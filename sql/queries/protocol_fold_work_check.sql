-- Work-level disjointness of the protocol evaluation fold $fold (sphragis folds' manifest; SPEC §12,
-- seed 001 "Verse, out of domain"): per work of the fold's kept sentences (SPEC §6 work_id), the
-- sentences of the same work in the fold's training projects (must be none) and the works of the
-- same author the training projects hold, with their projects and sentences.
with

fold_works as (
    select distinct
        c.author,
        c.work,
        c.work_id
    from {{ ref('mart_protocol_fold_sentences') }} as s
    inner join {{ ref('int_curated_sentences') }} as c on s.sentence_uid = c.sentence_uid
    where s.fold = $fold and s.is_kept and c.work_id is not null
),

training as (
    select
        c.project,
        c.author,
        c.work,
        c.work_id
    from {{ ref('protocol_fold_training_projects') }} as p
    inner join {{ ref('int_curated_sentences') }} as c on p.project = c.project
    where p.fold = $fold
)

select
    w.author,
    w.work,
    w.work_id,
    count(t.project) filter (where t.work_id = w.work_id) as same_work_sentences_in_training,
    list(distinct t.project || ': ' || t.work || ' (' || t.work_id || ')') filter (
        where t.work_id <> w.work_id
    ) as same_author_works_in_training,
    count(t.project) filter (where t.work_id <> w.work_id) as same_author_sentences_in_training
from fold_works as w
left join training as t on w.author = t.author
group by w.author, w.work, w.work_id
order by w.work_id
