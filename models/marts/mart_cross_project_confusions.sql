-- Cross-project confusions (SPEC §5.1): on aligned tokens of pairs whose two records are both
-- retained, every (field, value in project a, value in project b) where the two projects disagree,
-- with its token count and one example (the smallest dedup key showing it, then the smallest
-- sentence pair and token, with both texts).
-- Fields: form, lemma, upos, deprel, and each published FEATS feature (`feats:Tense`; NULL value =
-- feature absent). Grain: one row per (project_pair, field, value_a, value_b).
with

token_pairs as (
    select * from {{ ref('mart_cross_project_token_pairs') }}
    where both_retained
),

pairs as (select * from {{ ref('mart_cross_project_pairs') }}),

feature_types as (select feature from {{ ref('feats_published_types') }}),

field_values as (
    select
        t.project_pair,
        t.sentence_uid_a,
        t.sentence_uid_b,
        t.dedup_key,
        t.i,
        f.field,
        f.value_a,
        f.value_b
    from token_pairs as t
    cross join lateral (
        values
        ('form', t.form_a, t.form_b),
        ('lemma', t.lemma_a, t.lemma_b),
        ('upos', t.upos_a, t.upos_b),
        ('deprel', t.deprel_a, t.deprel_b)
        union all
        select
            'feats:' || ft.feature as field,
            t.feats_map_a[ft.feature] as value_a,
            t.feats_map_b[ft.feature] as value_b
        from feature_types as ft
    ) as f (field, value_a, value_b)
),

disagreements as (
    select *
    from field_values
    where value_a is distinct from value_b
),

grouped as (
    select
        project_pair,
        field,
        value_a,
        value_b,
        count(*) as tokens,
        -- deterministic: ties on the dedup key are broken by the pair's sentences and the token
        arg_min(
            struct_pack(sentence_uid_a := sentence_uid_a, sentence_uid_b := sentence_uid_b, i := i),
            struct_pack(k := dedup_key, a := sentence_uid_a, b := sentence_uid_b, i := i)
        ) as example
    from disagreements
    group by project_pair, field, value_a, value_b
),

final as (
    select
        g.project_pair,
        g.field,
        g.value_a,
        g.value_b,
        g.tokens,
        g.example.i as example_i,
        g.example.sentence_uid_a as example_sentence_uid_a,
        g.example.sentence_uid_b as example_sentence_uid_b,
        p.text_a as example_text_a,
        p.text_b as example_text_b
    from grouped as g
    inner join pairs as p
        on g.example.sentence_uid_a = p.sentence_uid_a and g.example.sentence_uid_b = p.sentence_uid_b
)

select * from final
