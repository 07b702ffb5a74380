-- Documents two projects both annotate (SPEC §5.1, §11; registry trismegistos_rule: PapyGreek's
-- papyri and those of Pedalion's papyri.xml): per Trismegistos id and project pair, the sentences
-- each project has in the document, the pairs of records of one sentence (same dedup key, both in
-- the document: mart_cross_project_pairs.same_document), how many have identical published text,
-- and on their aligned tokens the share agreeing on lemma, UPOS, FEATS, HEAD and DEPREL: the same
-- Greek, two annotators. Grain: one row per (trismegistos_id, project_a, project_b).
with

sentence_documents as (select * from {{ ref('int_sentence_documents') }}),

pairs as (
    select * from {{ ref('mart_cross_project_pairs') }}
    where same_document
),

token_pairs as (
    select * from {{ ref('mart_cross_project_token_pairs') }}
    where same_document
),

document_sizes as (
    select
        trismegistos_id,
        project,
        count(*) as n_sentences
    from sentence_documents
    where trismegistos_id is not null
    group by all
),

project_pairs as (
    -- every pair of projects that both have sentences of the document
    select
        a.trismegistos_id,
        a.project as project_a,
        b.project as project_b,
        a.n_sentences as n_sentences_a,
        b.n_sentences as n_sentences_b
    from document_sizes as a
    inner join document_sizes as b on a.trismegistos_id = b.trismegistos_id and a.project < b.project
),

pair_counts as (
    select
        trismegistos_id,
        project_a,
        project_b,
        count(*) as n_pairs,
        count(*) filter (where text_identical) as n_text_identical,
        count(*) filter (where is_aligned) as n_aligned_pairs
    from pairs
    group by all
),

token_counts as (
    select
        t.project_a,
        t.project_b,
        p.trismegistos_id,
        count(*) as n_aligned_tokens,
        count(*) filter (where t.lemma_a is not distinct from t.lemma_b) as n_lemma_agree,
        count(*) filter (where t.upos_a is not distinct from t.upos_b) as n_upos_agree,
        count(*) filter (where t.feats_a is not distinct from t.feats_b) as n_feats_agree,
        count(*) filter (where t.head_a is not distinct from t.head_b) as n_head_agree,
        count(*) filter (where t.head_a is not distinct from t.head_b and t.deprel_a is not distinct from t.deprel_b)
            as n_head_deprel_agree
    from token_pairs as t
    inner join pairs as p on t.sentence_uid_a = p.sentence_uid_a and t.sentence_uid_b = p.sentence_uid_b
    group by all
),

final as (
    select
        d.trismegistos_id,
        d.project_a,
        d.project_b,
        d.project_a || '–' || d.project_b as project_pair,
        d.n_sentences_a,
        d.n_sentences_b,
        coalesce(c.n_pairs, 0) as n_pairs,
        coalesce(c.n_text_identical, 0) as n_text_identical,
        coalesce(c.n_aligned_pairs, 0) as n_aligned_pairs,
        coalesce(t.n_aligned_tokens, 0) as n_aligned_tokens,
        coalesce(t.n_lemma_agree, 0) as n_lemma_agree,
        coalesce(t.n_upos_agree, 0) as n_upos_agree,
        coalesce(t.n_feats_agree, 0) as n_feats_agree,
        coalesce(t.n_head_agree, 0) as n_head_agree,
        coalesce(t.n_head_deprel_agree, 0) as n_head_deprel_agree
    from project_pairs as d
    left join pair_counts as c
        on d.trismegistos_id = c.trismegistos_id and d.project_a = c.project_a and d.project_b = c.project_b
    left join token_counts as t
        on d.trismegistos_id = t.trismegistos_id and d.project_a = t.project_a and d.project_b = t.project_b
)

select * from final
