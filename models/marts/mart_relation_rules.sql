-- The native relation mapping as applied (SPEC §4): every row of the seed `relation_map`
-- with the number of word tokens it applied to (per project), how they were resolved
-- (`n_by_branch`) and the pre-merge UD relations they received (`n_by_relation`, with `n_dep`
-- falling back to `dep`), plus one row per observed label missing from the seed (`is_mapped`
-- false: every such token fell back to `dep`). Grain: one row per relation label. A build-report
-- table of the benchmark: the projects counted (n_<project>) are those with AGDT-style native
-- syntax that the benchmark draws from (project registry: syntax_scheme, in_benchmark).
{%- set keys = registry_keys(syntax_scheme='AGDT', in_benchmark='true') %}
{%- set agdt_projects = keys.split(',') if keys else [] %}
with

relation_map as (
    select * from {{ ref('relation_map') }}
),

relations as (
    select * from {{ ref('int_token_relations') }}
    where project in ('{{ agdt_projects | join("', '") }}')
),

labelled as (
    select
        *,
        coalesce(source_relation, '(empty)') as label
    from relations
),

counts as (
    select
        label,
        count(*) as n_tokens,
        {% for p in agdt_projects -%}
            count(*) filter (where project = '{{ p }}') as n_{{ p }},
        {% endfor -%}
        count(*) filter (where deprel_ud = 'dep') as n_dep
    from labelled
    group by label
),

branch_counts as (
    select
        label,
        rule_branch,
        count(*) as n
    from labelled
    group by all
),

relation_counts as (
    select
        label,
        deprel_ud,
        count(*) as n
    from labelled
    group by all
),

by_branch as (
    select
        label,
        map(list(rule_branch order by rule_branch), list(n order by rule_branch)) as n_by_branch
    from branch_counts
    group by label
),

by_relation as (
    select
        label,
        map(list(deprel_ud order by deprel_ud), list(n order by deprel_ud)) as n_by_relation
    from relation_counts
    group by label
),

final as (
    select
        coalesce(m.label, c.label) as label,
        m.label is not null as is_mapped,
        -- the seed's own columns, in its order (base_label ... note)
        m.* exclude (label),
        coalesce(c.n_tokens, 0) as n_tokens,
        {% for p in agdt_projects -%}
            coalesce(c.n_{{ p }}, 0) as n_{{ p }},
        {% endfor -%}
        coalesce(c.n_dep, 0) as n_dep,
        b.n_by_branch,
        r.n_by_relation
    from relation_map as m
    full outer join counts as c on m.label = c.label
    left join by_branch as b on coalesce(m.label, c.label) = b.label
    left join by_relation as r on coalesce(m.label, c.label) = r.label
)

select * from final
order by n_tokens desc, label asc
