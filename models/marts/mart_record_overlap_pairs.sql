-- Overlapping pairs among all records, for the analyst (SPEC §7.1): every pair of
-- int_record_overlap_pairs (any two units with different dedup keys, retained or not) with both
-- sides' project, curated author, work and decision, and its class (macro overlap_class; a side
-- without an author label makes a `quotation`). Grain: one row per (sentence_uid_a, sentence_uid_b).
with

record_pairs as (select * from {{ ref('int_record_overlap_pairs') }}),

curated as (select * from {{ ref('int_curated_sentences') }}),

final as (
    select
        p.sentence_uid_a,
        p.sentence_uid_b,
        a.project as project_a,
        b.project as project_b,
        a.author as author_a,
        b.author as author_b,
        a.work as work_a,
        b.work as work_b,
        a.decision as decision_a,
        b.decision as decision_b,
        p.containment,
        p.shared_ngrams,
        p.shared_words,
        {{ overlap_class('p.is_edition_variant', 'a.author', 'b.author', 'a.work', 'b.work', 'a.project', 'b.project') }}
            as overlap_class
    from record_pairs as p
    inner join curated as a on p.sentence_uid_a = a.sentence_uid
    inner join curated as b on p.sentence_uid_b = b.sentence_uid
)

select * from final
