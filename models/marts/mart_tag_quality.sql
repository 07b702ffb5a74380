-- How each project's tags were obtained (SPEC §3 "counted per project in the build report").
-- Grain: one row per (project, tag_rule). Counts are word tokens that are not artificial nodes
-- (those are removed from the published trees, SPEC §4); the artificial ones are counted apart.
with

morphology as (select * from {{ ref('int_token_morphology') }}),

tag_rules as (select * from {{ ref('tag_rules') }}),

counts as (
    select
        project,
        tag_rule,
        count(*) filter (where not is_artificial) as tokens,
        count(*) filter (where is_artificial) as artificial_tokens
    from morphology
    group by project, tag_rule
),

outcomes as (
    -- a combined rule ('underscore_as_dash+padded') is a repair like each of its parts
    select
        c.project,
        c.tag_rule,
        coalesce(r.outcome, 'repaired') as outcome
    from counts as c
    left join tag_rules as r on c.tag_rule = r.tag_rule
),

final as (
    select
        c.project,
        c.tag_rule,
        o.outcome,
        o.outcome = 'repaired' as needed_rule,
        c.tokens,
        c.artificial_tokens,
        round(c.tokens / sum(c.tokens) over (partition by c.project), 6) as share
    from counts as c
    inner join outcomes as o on c.project = o.project and c.tag_rule = o.tag_rule
)

select * from final
order by project, tag_rule
