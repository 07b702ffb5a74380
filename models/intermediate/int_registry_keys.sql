-- The keys of the curation registries (SPEC §6), one per registry row, for the coverage test of
-- int_curated_sentences: a sentence whose document has no row fails the build naming its key. The
-- works registry covers the projects whose registry authorship_rule is works_registry, the
-- documentary registry (int_documentary_documents) those whose rule is documentary_persons.
with

registry as (select * from {{ ref('int_works_registry') }}),

documents as (select * from {{ ref('int_documentary_documents') }}),

works as (
    select
        project || ' | ' || document_key as registry_key,
        project,
        document_key,
        decision
    from registry
    where {{ project_in('project', authorship_rule='works_registry') }}
),

documentary as (
    select
        registry_key,
        project,
        document_key,
        'documentary' as decision
    from documents
),

final as (
    select * from works
    union all
    select * from documentary
)

select * from final
