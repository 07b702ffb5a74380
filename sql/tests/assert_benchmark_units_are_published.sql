-- Every unit of every row of the eight configurations (constituent_ids of a chunk row, the row id
-- of a _1 row) is a published atomic row of mart_split_rows, so the exporter finds its payload in
-- int_eligible_sentences and int_units (the view mart_export_units, export/writer.py
-- assemble_rows). Returns the offending rows.
with

benchmark_rows as (select * from {{ ref('mart_benchmark_rows') }}),

split_rows as (select * from {{ ref('mart_split_rows') }}),

units as (
    select
        benchmark_rows.config,
        benchmark_rows.id,
        unnest(coalesce(benchmark_rows.constituent_ids, [benchmark_rows.id])) as unit_id
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
