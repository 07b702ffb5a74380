-- Authors and rows per configuration and split (SPEC §8; the build summary and seed 000
-- "Configurations"): rows are the configuration's published rows (chunks for _5/_10/_50),
-- source_rows the atomic sentences they hold. Every (configuration, split) cell of the seeds
-- benchmark_configs × benchmark_splits is present (zero when empty). Grain: one row per (config, split).
with

benchmark_rows as (select * from {{ ref('mart_benchmark_rows') }}),

configs as (select * from {{ ref('benchmark_configs') }}),

splits as (select * from {{ ref('benchmark_splits') }}),

grid as (
    select
        c.track,
        c.config,
        c.chunk_target_size,
        s.split
    from configs as c
    cross join splits as s
),

counts as (
    select
        config,
        split,
        count(distinct author) as authors,
        count(*) as rows,
        sum(coalesce(chunk_size, 1)) as source_rows
    from benchmark_rows
    group by config, split
),

final as (
    select
        g.config,
        g.track,
        g.chunk_target_size,
        g.split,
        coalesce(c.authors, 0) as authors,
        coalesce(c.rows, 0) as rows,
        coalesce(c.source_rows, 0) as source_rows
    from grid as g
    left join counts as c on g.config = c.config and g.split = c.split
)

select * from final
