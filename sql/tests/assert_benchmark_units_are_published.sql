-- Every unit of every row of every configuration (its row_ids: a chunk's constituents, a _1
-- row itself) is a published atomic row of mart_split_rows, so the exporter finds its payload in
-- int_eligible_sentences and int_units (the view mart_export_units, export/writer.py
-- assemble_rows). Returns the offending rows.
with

benchmark_rows as (select * from {{ ref('mart_benchmark_rows') }}),

split_rows as (select * from {{ ref('mart_split_rows') }}),

units as (
    select
        benchmark_rows.config,
        benchmark_rows.id,
        unnest(benchmark_rows.row_ids) as unit_id
    from benchmark_rows
)

select
    units.config,
    units.id,
    units.unit_id
from units
where not exists (
    select 1 from split_rows
    where split_rows.row_id = units.unit_id
)
