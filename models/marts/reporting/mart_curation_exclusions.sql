-- Sentences and documents curation excluded, per reason (build report `exclusions`, SPEC §6).
with

curated as (select * from {{ ref('int_curated_sentences') }}),

final as (
    select
        decision as reason,
        count(*) as sentences,
        count(distinct project || '|' || document_key) as documents
    from curated
    where not is_retained
    group by decision
)

select * from final
