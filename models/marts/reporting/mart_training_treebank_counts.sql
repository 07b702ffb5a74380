-- Counts of the training treebank per project (sphragis export-treebank manifest `counts`):
-- candidate, selected and excluded sentences, tokens written, excluded sentences per reason
-- (the first rule that hits) and sentences hit per rule (any of the rules that hit), as maps.
with

candidates as (select * from {{ ref('int_training_candidates') }}),

selected as (select * from {{ ref('mart_training_treebank') }}),

exclusions as (select * from {{ ref('mart_training_treebank_exclusions') }}),

reason_counts as (
    select
        project,
        reason,
        count(*) as n
    from exclusions
    group by all
),

by_reason as (
    select
        project,
        map_from_entries(list((reason, n) order by reason)) as excluded_by_reason
    from reason_counts
    group by project
),

rule_counts as (
    select
        project,
        rule,
        count(*) as n
    from exclusions, unnest(reasons) as r (rule)
    group by all
),

by_rule as (
    select
        project,
        map_from_entries(list((rule, n) order by rule)) as hit_by_rule
    from rule_counts
    group by project
),

split_counts as (
    select
        project,
        split,
        count(*) as n
    from selected
    group by all
),

by_split as (
    select
        project,
        map_from_entries(list((split, n) order by split)) as selected_by_split
    from split_counts
    group by project
),

final as (
    select
        c.project,
        count(*) as candidates,
        count(s.sentence_uid) as selected,
        count(*) - count(s.sentence_uid) as excluded,
        coalesce(sum(s.n_tokens), 0)::bigint as tokens,
        coalesce(sum(s.n_punct), 0)::bigint as punct_tokens,
        any_value(r.excluded_by_reason) as excluded_by_reason,
        any_value(u.hit_by_rule) as hit_by_rule,
        any_value(b.selected_by_split) as selected_by_split
    from candidates as c
    left join selected as s on c.sentence_uid = s.sentence_uid
    left join by_reason as r on c.project = r.project
    left join by_rule as u on c.project = u.project
    left join by_split as b on c.project = b.project
    group by c.project
)

select * from final
