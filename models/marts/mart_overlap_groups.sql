-- Overlap groups (SPEC §7.1): one row per connected component of the overlapping pairs
-- (int_overlap_groups), with its members, authors, classes and the splits its published members
-- went to on each track. A group straddles a track when its published members are in two or
-- more splits there (the 'grouped' split profile leaves none on either track).
with

groups as (select * from {{ ref('int_overlap_groups') }}),

assignments as (select * from {{ ref('mart_split_assignments') }}),

members as (
    select
        g.group_id,
        g.row_id,
        g.group_pairs,
        g.group_classes,
        g.has_author_conflict,
        a.author,
        a.track,
        a.split
    from groups as g
    inner join assignments as a on g.row_id = a.row_id
),

final as (
    select
        group_id,
        count(distinct row_id) as group_rows,
        any_value(group_pairs) as group_pairs,
        any_value(group_classes) as group_classes,
        bool_or(has_author_conflict) as has_author_conflict,
        list_sort(list(distinct author)) as authors,
        list_sort(list(distinct row_id)) as row_ids,
        coalesce(list_sort(list(distinct split) filter (where track = 'main' and split is not null)), [])
            as main_splits,
        coalesce(list_sort(list(distinct split) filter (where track = 'source_held_out' and split is not null)), [])
            as held_out_splits,
        len(main_splits) > 1 as straddles_main,
        len(held_out_splits) > 1 as straddles_source_held_out
    from members
    group by group_id
)

select * from final
