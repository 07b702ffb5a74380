-- Evaluation rows with a near-twin in training, per configuration, evaluation split and class
-- (SPEC §7.1): the build report's passage_overlap table and the dataset card's
-- limitation. `after`: this build (mart_overlap_twin_rows); `before`: the same rows under seed
-- 000's rules alone (mart_split_assignments.baseline_split), for the atomic (_1) configurations
-- only (NULL for chunks: the baseline is not chunked). overlap_class 'any' counts a row once. The
-- *_char_* counts are the rows with a twin the character measure finds (int_overlap_char_pairs).
-- Grain: one row per (config, split, overlap_class).
with

configs as (select * from {{ ref('benchmark_configs') }}),

classes as (select * from {{ ref('overlap_classes') }}),

benchmark_rows as (select * from {{ ref('mart_benchmark_rows') }}),

twin_rows as (select * from {{ ref('mart_overlap_twin_rows') }}),

assignments as (select * from {{ ref('mart_split_assignments') }}),

edges as (select * from {{ ref('int_overlap_edges') }}),

reported_classes as (
    select
        overlap_class,
        class_order
    from classes
    union all
    select
        'any' as overlap_class,
        0 as class_order
),

cells as (
    select
        c.config,
        c.track,
        c.chunk_target_size,
        s.split,
        k.overlap_class,
        k.class_order
    from configs as c
    cross join (values ('validation'), ('test')) as s (split)
    cross join reported_classes as k
),

evaluation_rows as (
    select
        config,
        split,
        count(*) as evaluation_rows
    from benchmark_rows
    where split in ('validation', 'test')
    group by config, split
),

after_counts as (
    select
        t.config,
        t.split,
        k.overlap_class,
        count(*) as rows_with_twin,
        count(*) filter (where t.char_train_twins > 0) as rows_with_char_twin
    from twin_rows as t
    cross join reported_classes as k
    where k.overlap_class = 'any' or list_contains(t.twin_classes, k.overlap_class)
    group by t.config, t.split, k.overlap_class
),

baseline_twins as (
    -- baseline evaluation rows of a track with a baseline training twin
    select distinct
        e.track,
        e.baseline_split as split,
        e.row_id,
        x.overlap_class,
        x.is_char_twin
    from assignments as e
    inner join edges as x on e.row_id = x.row_id
    inner join assignments as t on e.track = t.track and x.twin_row_id = t.row_id
    where e.baseline_split in ('validation', 'test') and t.baseline_split = 'train'
),

before_counts as (
    select
        b.track,
        b.split,
        k.overlap_class,
        count(distinct b.row_id) as rows_with_twin,
        count(distinct b.row_id) filter (where b.is_char_twin) as rows_with_char_twin
    from baseline_twins as b
    cross join reported_classes as k
    where k.overlap_class in ('any', b.overlap_class)
    group by b.track, b.split, k.overlap_class
),

final as (
    select
        c.config,
        c.track,
        c.split,
        c.overlap_class,
        coalesce(r.evaluation_rows, 0) as evaluation_rows,
        case when c.chunk_target_size = 1 then coalesce(b.rows_with_twin, 0) end as rows_with_twin_before,
        coalesce(a.rows_with_twin, 0) as rows_with_twin_after,
        case when c.chunk_target_size = 1 then coalesce(b.rows_with_char_twin, 0) end as rows_with_char_twin_before,
        coalesce(a.rows_with_char_twin, 0) as rows_with_char_twin_after,
        c.class_order
    from cells as c
    left join evaluation_rows as r on c.config = r.config and c.split = r.split
    left join after_counts as a on c.config = a.config and c.split = a.split and c.overlap_class = a.overlap_class
    left join before_counts as b
        on c.track = b.track and c.split = b.split and c.overlap_class = b.overlap_class
)

select * from final
