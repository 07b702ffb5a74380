-- The analyst's token table (issue 32; docs/models.md): one row per token (syntactic word: not a
-- CoNLL-U multiword range, not an empty node) of every upstream sentence of every project, with
-- where it comes from (project, author, work, upstream sent_id, passage, CTS URN), the values as
-- the source wrote them (*_raw), the normalized and published values (SPEC §3–§5.1), its head's
-- lemma/UPOS/DEPREL and its dependents by relation in the published tree, and whether, and in
-- which configurations and splits, its sentence is published (SPEC §7–§8: the record is one of
-- the source_records of a published row). Grain: one row per (sentence_uid, token_pos).
--
-- A view: the token values (int_token_values, 1.6 M rows) and what the works registry and the
-- splits say of each sentence (int_sentence_labels) are tables of their own, joined here, so a
-- one-row registry edit rebuilds the per-sentence labels and not the 1.6 M token rows (writing
-- them again, each with its sentence's published_in list, was 40 % of that rebuild).
{{ config(materialized='view') }}
with

token_values as (select * from {{ ref('int_token_values') }}),

labels as (select * from {{ ref('int_sentence_labels') }}),

final as (
    select
        v.sentence_uid,
        v.token_pos,
        v.project,
        v.treebank_source,
        l.author,
        l.work,
        l.work_id,
        l.genre,
        l.decision,
        l.is_retained,
        v.document_key,
        v.sent_id,
        v.passage,
        v.cts_urn,
        v.path,
        v.token_id_raw,
        v.form_raw,
        v.lemma_raw,
        v.tag_raw,
        v.upos_raw,
        v.feats_raw,
        v.head_raw,
        v.deprel_raw,
        v.tag,
        v.form,
        v.lemma,
        v.upos,
        v.feats,
        v.feats_full,
        v.i,
        v.head,
        v.deprel,
        v.deprel_ud,
        v.is_punctuation,
        v.is_artificial,
        v.is_published_token,
        l.is_chosen_parse,
        v.feats_map,
        v.head_lemma,
        v.head_upos,
        v.head_deprel,
        v.n_dependents,
        v.dependents_by_deprel,
        l.is_published,
        l.published_in
    from token_values as v
    inner join labels as l on v.sentence_uid = l.sentence_uid
)

select * from final
