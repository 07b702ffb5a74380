-- Sentences and documents curation excluded from the benchmark's projects (registry
-- in_benchmark), per reason (build report `exclusions`, SPEC §6).
with

curated as (select * from {{ ref('int_curated_sentences') }}),

final as (
    select
        decision as reason,
        count(*) as sentences,
        count(distinct project || '|' || document_key) as documents
    from curated
    where in_benchmark and not is_retained
    group by decision
)

select * from final
