-- Overlapping pairs of eligible rows (SPEC §7.1; int_overlap_pairs) with where each side
-- went on every track: the published split of this build and the baseline split (seed 000's rules
-- alone, mart_split_assignments.baseline_split), and whether the pair straddles splits (both
-- sides published, in different splits). Grain: one row per (row_id_a, row_id_b).
with

pairs as (select * from {{ ref('int_overlap_pairs') }}),

assignments as (select * from {{ ref('mart_split_assignments') }}),

sides as (
    select
        row_id,
        any_value(split) filter (where track = 'main') as main_split,
        any_value(baseline_split) filter (where track = 'main') as main_baseline_split,
        any_value(split) filter (where track = 'source_held_out') as held_out_split,
        any_value(baseline_split) filter (where track = 'source_held_out') as held_out_baseline_split,
        any_value(split) filter (where track = 'work_held_out') as work_held_out_split,
        any_value(baseline_split) filter (where track = 'work_held_out') as work_held_out_baseline_split
    from assignments
    group by row_id
),

final as (
    select
        p.*,
        a.main_split as main_split_a,
        b.main_split as main_split_b,
        a.held_out_split as held_out_split_a,
        b.held_out_split as held_out_split_b,
        a.work_held_out_split as work_held_out_split_a,
        b.work_held_out_split as work_held_out_split_b,
        coalesce(a.main_split <> b.main_split, false) as straddles_main,
        coalesce(a.held_out_split <> b.held_out_split, false) as straddles_source_held_out,
        coalesce(a.main_baseline_split <> b.main_baseline_split, false) as straddled_main_baseline,
        coalesce(a.held_out_baseline_split <> b.held_out_baseline_split, false) as straddled_source_held_out_baseline,
        coalesce(a.work_held_out_split <> b.work_held_out_split, false) as straddles_work_held_out,
        coalesce(a.work_held_out_baseline_split <> b.work_held_out_baseline_split, false)
            as straddled_work_held_out_baseline
    from pairs as p
    inner join sides as a on p.row_id_a = a.row_id
    inner join sides as b on p.row_id_b = b.row_id
)

select * from final
