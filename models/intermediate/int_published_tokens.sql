-- Published tokens (SPEC §5, §5.1): each surviving token of int_tree_tokens with its published form
-- (int_token_forms: split words rejoined, editorial marks removed, look-alike letters mapped,
-- apostrophes → U+2019, NFC, lowercase with grc_utils.lower_grc, grave → acute) and a flag per rule
-- that changed it, its published lemma, UPOS and FEATS. Grain: one row per (sentence_uid, i).
with

tree_tokens as (select * from {{ ref('int_tree_tokens') }}),

morphology as (select * from {{ ref('int_token_morphology') }}),

token_forms as (select * from {{ ref('int_token_forms') }}),

final as (
    select
        t.sentence_uid,
        t.token_pos,
        t.i,
        f.form,
        m.lemma,
        m.upos,
        m.feats,
        t.head,
        t.deprel,
        t.deprel_ud,
        t.repair,
        t.src,
        t.source_relation,
        t.source_head,
        f.source_form,
        f.split_word_merged,
        f.whitespace_removed as whitespace_normalized,
        f.editorial_marks_removed,
        f.latin_letters_mapped,
        f.numeral_keraia_unified,
        f.elision_unified,
        f.stray_characters_removed,
        f.nfc_changed,
        f.lowercased,
        f.grave_to_acute
    from tree_tokens as t
    inner join morphology as m on t.sentence_uid = m.sentence_uid and t.token_pos = m.token_pos
    inner join token_forms as f on t.sentence_uid = f.sentence_uid and t.token_pos = f.token_pos
)

select * from final
