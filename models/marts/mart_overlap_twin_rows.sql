-- Evaluation rows with a near-twin in training (SPEC §7.1): every validation or test
-- row of every configuration (a chunk through its constituents) one of whose units overlaps
-- (int_overlap_pairs) a published training row of the same track, with the classes of those
-- pairs (either measure: word or character n-grams) and how many of the twins the character
-- measure finds. The leakage audit scores text→author without these rows (build_report.json
-- passage_overlap). Grain: one row per (config, id).
with

benchmark_rows as (select * from {{ ref('mart_benchmark_rows') }}),

split_rows as (select * from {{ ref('mart_split_rows') }}),

edges as (select * from {{ ref('int_overlap_edges') }}),

evaluation_units as (
    select
        config,
        track,
        split,
        id,
        unnest(row_ids) as row_id
    from benchmark_rows
    where split in ('validation', 'test')
),

twins as (
    select
        u.config,
        u.track,
        u.split,
        u.id,
        e.overlap_class,
        e.is_char_twin,
        e.twin_row_id
    from evaluation_units as u
    inner join edges as e on u.row_id = e.row_id
    inner join split_rows as t on u.track = t.track and e.twin_row_id = t.row_id
    where t.split = 'train'
),

final as (
    select
        config,
        track,
        split,
        id,
        list_sort(list(distinct overlap_class)) as twin_classes,
        count(distinct twin_row_id) as train_twins,
        count(distinct twin_row_id) filter (where is_char_twin) as char_train_twins
    from twins
    group by config, track, split, id
)

select * from final
