-- Aligned tokens of the cross-project pairs (SPEC §5.1): for every pair of mart_cross_project_pairs
-- with equal token counts, token i of one record faces token i of the other. Each published field
-- (form, lemma, UPOS, FEATS, HEAD, DEPREL) of both sides, and the FEATS as a map for per-feature
-- comparison. Grain: one row per (sentence_uid_a, sentence_uid_b, i).
with

pairs as (
    select * from {{ ref('mart_cross_project_pairs') }}
    where is_aligned
),

units as (select * from {{ ref('int_units') }}),

pair_sentences as (
    select sentence_uid_a as sentence_uid from pairs
    union
    select sentence_uid_b from pairs
),

tokens as (
    -- the tokens of the sentences in an aligned pair only
    select
        u.sentence_uid,
        unnest(u.tokens) as t
    from units as u
    semi join pair_sentences as s on u.sentence_uid = s.sentence_uid
),

unnested as (
    select
        tok.sentence_uid,
        tok.t.id as i,
        tok.t.form,
        tok.t.lemma,
        tok.t.upos,
        tok.t.feats,
        tok.t.head,
        tok.t.deprel
    from tokens as tok
),

feats_maps as (
    -- each distinct FEATS string parsed once
    select
        feats_key,
        map_from_entries(
            list_transform(
                string_split(feats_key, '|'),
                lambda f: struct_pack(k := split_part(f, '=', 1), v := split_part(f, '=', 2))  -- noqa: RF02, RF03
            )
        ) as feats_map
    from (select distinct coalesce(feats, '') as feats_key from unnested) as k
),

flat as (
    select
        u.*,
        m.feats_map
    from unnested as u
    inner join feats_maps as m on coalesce(u.feats, '') = m.feats_key
),

final as (
    select
        p.project_pair,
        p.project_a,
        p.project_b,
        p.dedup_key,
        p.sentence_uid_a,
        p.sentence_uid_b,
        p.both_retained,
        p.same_document,
        p.text_identical,
        a.i,
        a.form as form_a,
        b.form as form_b,
        a.lemma as lemma_a,
        b.lemma as lemma_b,
        a.upos as upos_a,
        b.upos as upos_b,
        a.feats as feats_a,
        b.feats as feats_b,
        a.feats_map as feats_map_a,
        b.feats_map as feats_map_b,
        a.head as head_a,
        b.head as head_b,
        a.deprel as deprel_a,
        b.deprel as deprel_b
    from pairs as p
    inner join flat as a on p.sentence_uid_a = a.sentence_uid
    inner join flat as b on p.sentence_uid_b = b.sentence_uid and a.i = b.i
)

select * from final
