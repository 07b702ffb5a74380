-- What differences remain between projects after SPEC §5: per project, the share (%) of
-- published tokens carrying each published UPOS, DEPREL and FEATS feature=value, over all
-- published units. Grain: one row per (project, kind, value).
with

published as (select * from {{ ref('int_published_tokens') }}),

sentences as (select * from {{ ref('int_sentences') }}),

tokens as (
    select
        s.project,
        p.upos,
        p.deprel,
        p.feats
    from published as p
    inner join sentences as s on p.sentence_uid = s.sentence_uid
),

totals as (
    select
        project,
        count(*) as tokens
    from tokens
    group by project
),

categories as (
    select
        project,
        'upos' as kind,
        upos as value
    from tokens
    union all
    select
        project,
        'deprel' as kind,
        deprel as value
    from tokens
    union all
    select
        project,
        'feats' as kind,
        unnest(string_split(feats, '|')) as value
    from tokens
    where feats is not null
),

counted as (
    select
        project,
        kind,
        value,
        count(*) as tokens_with_value
    from categories
    group by all
),

final as (
    select
        c.project,
        c.kind,
        c.value,
        c.tokens_with_value,
        t.tokens as project_tokens,
        round(100.0 * c.tokens_with_value / t.tokens, 3) as pct
    from counted as c
    inner join totals as t on c.project = t.project
)

select * from final
