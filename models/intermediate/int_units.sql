-- The model-facing representation of every upstream sentence that keeps at least one token
-- (SPEC §5): forms and lemmas NFC and lowercased with grc_utils.lower_grc, word-final elision
-- marks unified to U+2019, punctuation and artificial nodes already removed by int_tree_tokens,
-- published UPOS/DEPREL/FEATS inventories; `text` is the forms joined by single spaces; `tokens`
-- is the CoNLL-U token list; `native_syntax` the per-token audit records of non-UD projects;
-- `dedup_key` the SPEC §7 key. Grain: one row per sentence_uid.
with

tree_tokens as (select * from {{ ref('int_tree_tokens') }}),
morphology as (select * from {{ ref('int_token_morphology') }}),
tokens as (select * from {{ ref('int_tokens') }}),
sentences as (select * from {{ ref('int_sentences') }}),
elision_marks as (select * from {{ ref('elision_marks') }}),

elision_class as (
    -- one regex character class of every elision mark listed in the seed
    select '[' || string_agg(chr(('0x' || substr(codepoint, 3))::integer), '') || ']$' as pattern
    from elision_marks
),

published_tokens as (
    select
        t.sentence_uid,
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
        lower_grc(nfc_normalize(regexp_replace(tok.form, e.pattern, chr(8217)))) as form,
        m.lemma,
        tok.form as source_form
    from tree_tokens as t
    inner join morphology as m on t.sentence_uid = m.sentence_uid and t.token_pos = m.token_pos
    inner join tokens as tok on t.sentence_uid = tok.sentence_uid and t.token_pos = tok.token_pos
    cross join elision_class as e
),

units as (
    select
        sentence_uid,
        string_agg(form, ' ' order by i) as text,
        list(
            struct_pack(id := i, form := form, lemma := lemma, upos := upos, feats := feats, head := head, deprel := deprel)
            order by i
        ) as tokens,
        list(
            struct_pack(sentence := 1, i := i, src := src, relation := source_relation, head := source_head, repair := repair)
            order by i
        ) as native_syntax_all,
        count(*) as n_tokens
    from published_tokens
    group by sentence_uid
),

final as (
    select
        u.sentence_uid,
        s.project,
        u.text,
        u.tokens,
        case when s.project like 'ud\_%' escape '\' then [] else u.native_syntax_all end as native_syntax,
        u.n_tokens,
        replace(regexp_replace(lower(strip_accents(u.text)), '[^\p{L}]', '', 'g'), 'ς', 'σ') as dedup_key
    from units as u
    inner join sentences as s on u.sentence_uid = s.sentence_uid
)

select * from final
