-- The Trismegistos number of every sentence's document, by its project's registry
-- trismegistos_rule (macro trismegistos_id): the key under which two projects' annotations of the
-- same papyrus meet (mart_cross_project_pairs.same_document, mart_shared_documents). Grain: one
-- row per upstream sentence of a project whose rule is not none, NULL where the document has no
-- Trismegistos number.
with

sentences as (select * from {{ ref('int_sentences') }}),

documents as (select * from {{ ref('int_documentary_documents') }}),

registry as (select * from {{ ref('projects') }}),

final as (
    select
        s.sentence_uid,
        s.project,
        {{ trismegistos_id('r.trismegistos_rule', 's', 'd.tm_id') }} as trismegistos_id
    from sentences as s
    inner join registry as r on s.project = r.project
    left join documents as d on s.project = d.project and s.document_key = d.document_key
    where r.trismegistos_rule <> 'none'
)

select * from final
