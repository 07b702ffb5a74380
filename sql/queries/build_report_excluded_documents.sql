-- Every document curation excluded, with its registry author, work and justification and its
-- sentence count (build report `excluded_documents`, SPEC §6). Grain: (project, document_key).
select
    c.project,
    c.document_key,
    any_value(r.author) as author,
    any_value(r.work) as work,
    c.decision as reason,
    any_value(r.justification) as justification,
    count(*) as sentences
from int_curated_sentences as c
inner join int_works_registry as r on c.project = r.project and c.document_key = r.document_key
where not c.is_retained
group by c.project, c.document_key, c.decision
order by all
