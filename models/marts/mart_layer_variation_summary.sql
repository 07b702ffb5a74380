-- The layer variation in figures (mart_layer_variation): per project, other layer and field, the
-- real words (artificial nodes left out) by how the two layers relate, the share changed among
-- those annotated in both, and the five most frequent changes (`other → published`, with counts):
-- what the editors regularised (spelling, lemma, tag, relation, head). Grain: one row per
-- (project, other_layer, field).
with

variation as (
    select * from {{ ref('mart_layer_variation') }}
    where not is_artificial
),

by_field as (
    {{ layer_field_rows('variation') }}
),

changes as (
    select
        project,
        other_layer,
        field,
        other_value || ' → ' || published_value as change_pair,
        count(*) as n
    from by_field
    where change = 'changed'
    group by all
),

top_changes as (
    select
        project,
        other_layer,
        field,
        list(struct_pack(change := change_pair, n := n) order by n desc, change_pair asc) as top_changes
    from (
        select *
        from changes
        qualify row_number() over (partition by project, other_layer, field order by n desc, change_pair asc) <= 5
    ) as t
    group by all
),

counts as (
    select
        project,
        any_value(published_layer) as published_layer,
        other_layer,
        field,
        count(*) as n_words,
        count(*) filter (where change = 'same') as n_same,
        count(*) filter (where change = 'changed') as n_changed,
        count(*) filter (where change = 'only_published') as n_only_published,
        count(*) filter (where change = 'only_other') as n_only_other,
        count(*) filter (where change = 'absent') as n_absent
    from by_field
    group by project, other_layer, field
),

final as (
    select
        c.*,
        round(100.0 * c.n_changed / nullif(c.n_same + c.n_changed, 0), 2) as pct_changed,
        coalesce(t.top_changes, []) as top_changes
    from counts as c
    left join top_changes as t on c.project = t.project and c.other_layer = t.other_layer and c.field = t.field
)

select * from final
