-- Every document curation excluded from the benchmark's projects (registry in_benchmark), with its
-- registry author, work and justification and its sentence count (build report
-- `excluded_documents`, SPEC §6).
with

curated as (select * from {{ ref('int_curated_sentences') }}),

registry as (select * from {{ ref('int_works_registry') }}),

final as (
    select
        c.project,
        c.document_key,
        any_value(r.author) as author,
        any_value(r.work) as work,
        c.decision as reason,
        any_value(r.justification) as justification,
        count(*) as sentences
    from curated as c
    inner join registry as r on c.project = r.project and c.document_key = r.document_key
    where c.in_benchmark and not c.is_retained
    group by c.project, c.document_key, c.decision
)

select * from final
