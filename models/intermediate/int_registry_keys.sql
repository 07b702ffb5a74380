-- The keys of the works registry seed (SPEC §6), one per registry row, for the coverage test of
-- int_curated_sentences: a sentence whose document has no row fails the build naming its key.
with

registry as (select * from {{ ref('int_works_registry') }}),

final as (
    select
        project || ' | ' || document_key as registry_key,
        project,
        document_key,
        decision
    from registry
)

select * from final
