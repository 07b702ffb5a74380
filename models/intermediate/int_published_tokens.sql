-- Published tokens (SPEC §5 orthography): each surviving token of int_tree_tokens with its form
-- after each rule (word-final elision marks → U+2019, NFC, lowercase with grc_utils.lower_grc),
-- its published lemma, UPOS and FEATS (NFC is applied again after lowercasing, which can
-- decompose, e.g. capital rho with psili). Grain: one row per (sentence_uid, i).
with

tree_tokens as (select * from {{ ref('int_tree_tokens') }}),

morphology as (select * from {{ ref('int_token_morphology') }}),

tokens as (select * from {{ ref('int_tokens') }}),

elision_marks as (select * from {{ ref('elision_marks') }}),

psili_letters as (select * from {{ ref('elision_psili_letters') }}),

elision_chars as (
    -- the elision marks listed in the seed, as one list of characters
    select list(chr(('0x' || substr(codepoint, 3))::integer)) as marks
    from elision_marks
),

forms as (
    select
        t.sentence_uid,
        t.token_pos,
        t.i,
        t.head,
        t.deprel,
        t.deprel_ud,
        t.repair,
        t.src,
        t.source_relation,
        t.source_head,
        m.upos,
        m.feats,
        m.lemma,
        tok.form as source_form,
        -- surrounding whitespace is dropped and inner runs become one space (a few multi-word tokens)
        regexp_replace(trim(tok.form), '\s+', ' ', 'g') as form_trimmed,
        e.marks as elision_marks
    from tree_tokens as t
    inner join morphology as m on t.sentence_uid = m.sentence_uid and t.token_pos = m.token_pos
    inner join tokens as tok on t.sentence_uid = tok.sentence_uid and t.token_pos = tok.token_pos
    cross join elision_chars as e
),

psili_elided as (
    -- a word-final letter carrying only a smooth breathing is an elision mark (or a numeral's
    -- keraia) written as psili (UD Perseus: παῤ, δἰ, ἐκέλεὐ, ῤ for ρ’): the letter loses it and
    -- U+2019 follows. A breathing is genuine only on a word-initial vowel, so the one exception is
    -- a two-letter word-initial diphthong (εἰ, οὐ, αἰ, εὐ): a vowel after a vowel in a 2-letter word.
    select
        f.* exclude (form_trimmed),
        case
            when
                p.base is not null
                and (
                    p.requires_preceding_consonant = 'false'
                    or length(f.form_trimmed) <> 2
                    or regexp_matches(strip_accents(lower(f.form_trimmed[1:1])), '[βγδζθκλμνξπρσςτφχψ]')
                )
                then left(f.form_trimmed, -1) || p.base || chr(8217)
            else f.form_trimmed
        end as form_trimmed,
        f.form_trimmed as form_before_elision
    from forms as f
    left join psili_letters as p on right(f.form_trimmed, 1) = chr(('0x' || substr(p.codepoint, 3))::integer)
),

elided as (
    select
        *,
        case
            when list_contains(elision_marks, right(form_trimmed, 1))
                then left(form_trimmed, -1) || chr(8217)
            else form_trimmed
        end as form_elided
    from psili_elided
),

normalized as (
    select
        *,
        nfc_normalize(form_elided) as form_nfc
    from elided
),

lowered as (
    -- lower_grc is a Python UDF: call it once per distinct form, not once per token
    select
        form_nfc,
        nfc_normalize(lower_grc(form_nfc)) as form
    from (select distinct form_nfc from normalized)
),

final as (
    select
        n.sentence_uid,
        n.token_pos,
        n.i,
        l.form,
        n.lemma,
        n.upos,
        n.feats,
        n.head,
        n.deprel,
        n.deprel_ud,
        n.repair,
        n.src,
        n.source_relation,
        n.source_head,
        n.source_form,
        n.form_before_elision <> n.source_form as whitespace_normalized,
        n.form_elided <> n.form_before_elision as elision_unified,
        n.form_nfc <> n.form_elided as nfc_changed,
        l.form <> n.form_nfc as lowercased
    from normalized as n
    inner join lowered as l on n.form_nfc = l.form_nfc
)

select * from final
