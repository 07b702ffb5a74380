-- The model-facing representation of every upstream sentence that keeps at least one token
-- (SPEC §5): `text` is the published forms joined by single spaces, `tokens` the CoNLL-U token
-- list, `native_syntax` the per-token audit records of non-UD projects (SPEC §4), `dedup_key`
-- the SPEC §7 key (NFD, combining marks dropped, lowercased, final sigma → σ, letters only).
-- Grain: one row per sentence_uid.
with

published_tokens as (select * from {{ ref('int_published_tokens') }}),

sentences as (select * from {{ ref('int_sentences') }}),

priority as (select * from {{ ref('source_priority') }}),

token_lists as (
    -- one list per sentence, sorted by its first field `id` (unique in a sentence): cheaper than
    -- an ordered aggregate; the three lists are cut from it
    select
        sentence_uid,
        list_sort(list(
            struct_pack(
                id := i, form := form, lemma := lemma, upos := upos, feats := feats, head := head, deprel := deprel,
                src := src, relation := source_relation, source_head := source_head, repair := repair
            )
        )) as rows,
        count(*) as n_tokens
    from published_tokens
    group by sentence_uid
),

-- noqa: disable=RF03
-- (lambda parameters read as qualified references)
units as (
    select
        sentence_uid,
        array_to_string(list_transform(rows, lambda r: r.form), ' ') as text,  -- noqa: RF02
        list_transform(
            rows,
            lambda r: struct_pack(  -- noqa: RF02
                id := r.id, form := r.form, lemma := r.lemma, upos := r.upos, feats := r.feats, head := r.head,
                deprel := r.deprel
            )
        ) as tokens,
        list_transform(
            rows,
            lambda r: struct_pack(  -- noqa: RF02
                sentence := 1, i := r.id, src := r.src, relation := r.relation, head := r.source_head,
                repair := r.repair
            )
        ) as native_records,
        n_tokens
    from token_lists
),

-- noqa: enable=RF03
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
