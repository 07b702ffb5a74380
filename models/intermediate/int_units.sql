-- The model-facing representation of every upstream sentence that keeps at least one token
-- (SPEC §5): `text` is the published forms joined by single spaces, `tokens` the CoNLL-U token
-- list, `native_syntax` the per-token audit records of non-UD projects (SPEC §4), `dedup_key`
-- the SPEC §7 key (NFD, combining marks dropped, lowercased, final sigma → σ, letters only).
-- Grain: one row per sentence_uid.
with

published_tokens as not materialized (select * from {{ ref('int_published_tokens') }}),

sentences as (select * from {{ ref('int_sentences') }}),

priority as (select * from {{ ref('projects') }}),

non_ud_sentences as (
    select s.sentence_uid
    from sentences as s
    inner join priority as p on s.project = p.project
    where p.syntax_scheme <> 'UD'
),

token_lists as (
    -- the CoNLL-U token list, sorted by its first field `id` (unique in a sentence): cheaper than
    -- an ordered aggregate; two narrow aggregates (tokens, native records) need far less memory
    -- than one list of both
    select
        sentence_uid,
        list_sort(list(
            struct_pack(id := i, form := form, lemma := lemma, upos := upos, feats := feats, head := head, deprel := deprel)
        )) as tokens,
        count(*) as n_tokens
    from published_tokens
    group by sentence_uid
),

native_lists as (
    -- the audit records of non-UD sentences, sorted by (sentence = 1, i): by i
    select
        t.sentence_uid,
        list_sort(list(
            struct_pack(
                sentence := 1, i := t.i, src := t.src, relation := t.source_relation, head := t.source_head,
                repair := t.repair
            )
        )) as native_records
    from published_tokens as t
    semi join non_ud_sentences as n on t.sentence_uid = n.sentence_uid
    group by t.sentence_uid
),

-- noqa: disable=RF03
-- (lambda parameters read as qualified references)
units as (
    select
        sentence_uid,
        array_to_string(list_transform(tokens, lambda r: r.form), ' ') as text,  -- noqa: RF02
        tokens,
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
        case when p.syntax_scheme = 'UD' then [] else n.native_records end as native_syntax,
        u.n_tokens,
        {{ dedup_key('u.text') }} as dedup_key
    from units as u
    inner join sentences as s on u.sentence_uid = s.sentence_uid
    inner join priority as p on s.project = p.project
    left join native_lists as n on u.sentence_uid = n.sentence_uid
)

select * from final
