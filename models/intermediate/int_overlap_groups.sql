-- Overlap groups (SPEC §7.1): the connected components of the graph whose nodes are
-- eligible rows and whose edges are the overlapping pairs of int_overlap_pairs, by label
-- propagation: every row starts with its own row_id as label and takes the smallest label of its
-- neighbours until no label changes (a recursive CTE keyed by row, DuckDB's USING KEY). A group is
-- named by its smallest row_id. Grain: one row per eligible row in at least one pair.
with recursive  -- noqa: PRS

pairs as (select * from {{ ref('int_overlap_pairs') }}),

overlap_edges as (select * from {{ ref('int_overlap_edges') }}),

edges as (
    select
        row_id,
        twin_row_id as neighbour
    from overlap_edges
),

labels (row_id, group_id) using key (row_id) as (
    select distinct
        row_id,
        row_id as group_id
    from edges
    union
    select
        e.neighbour as row_id,
        min(l.group_id) as group_id
    from labels as l
    inner join edges as e on l.row_id = e.row_id
    inner join recurring.labels as current_label on e.neighbour = current_label.row_id
    group by e.neighbour, current_label.group_id
    having min(l.group_id) < current_label.group_id
),

classes as (
    select
        l.group_id,
        list_sort(list(distinct p.overlap_class)) as group_classes,
        count(*) as group_pairs,
        bool_or(p.is_author_conflict) as has_author_conflict
    from pairs as p
    inner join labels as l on p.row_id_a = l.row_id
    group by l.group_id
),

final as (
    select
        l.row_id,
        l.group_id,
        count(*) over (partition by l.group_id) as group_rows,
        c.group_pairs,
        c.group_classes,
        c.has_author_conflict
    from labels as l
    inner join classes as c on l.group_id = c.group_id
)

select * from final
