-- Sentences where a VERB has two or more published `obj` dependents, per project, over every
-- sentence the project annotates (table `tokens_all_parses`: each project's own parse, dependents
-- counted by published relation). The published `obj` is a merge: `obj_merged_from` lists the UD
-- relations it holds (seed deprel_published), `iobj` among them.
with

obj as (
    select list(deprel_ud_base order by deprel_ud_base) as merged_from
    from deprel_published
    where deprel = 'obj'
)

select
    t.project,
    count(distinct t.sentence_key) as n_sentences,
    any_value(obj.merged_from) as obj_merged_from
from tokens_all_parses as t
cross join obj
where t.upos = 'VERB' and t.dependents_by_deprel['obj'] >= 2
group by t.project
order by t.project asc
