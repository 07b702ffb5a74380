-- The model-facing representation of every upstream sentence that keeps at least one token
-- (SPEC §5): `text` is the published forms joined by single spaces, `tokens` the CoNLL-U token
-- list, `native_syntax` the per-token audit records of non-UD projects (SPEC §4), `dedup_key`
-- the SPEC §7 key (NFD, combining marks dropped, lowercased, final sigma → σ, letters only).
-- Grain: one row per sentence_uid.
with

published_tokens as (select * from {{ ref('int_published_tokens') }}),

sentences as (select * from {{ ref('int_sentences') }}),

priority as (select * from {{ ref('source_priority') }}),

units as (
    select
        sentence_uid,
        string_agg(form, ' ' order by i) as text,
        list(
            struct_pack(
                id := i, form := form, lemma := lemma, upos := upos, feats := feats, head := head, deprel := deprel
            )
            order by i
        ) as tokens,
        list(
            struct_pack(
                sentence := 1, i := i, src := src, relation := source_relation, head := source_head, repair := repair
            )
            order by i
        ) as native_records,
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
        case when p.syntax_scheme = 'UD' then [] else u.native_records end as native_syntax,
        u.n_tokens,
        replace(regexp_replace(lower(strip_accents(u.text)), '[^\p{L}]', '', 'g'), 'ς', 'σ') as dedup_key
    from units as u
    inner join sentences as s on u.sentence_uid = s.sentence_uid
    inner join priority as p on s.project = p.project
)

select * from final
