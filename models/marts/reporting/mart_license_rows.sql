-- Per (treebank_source, license): published rows of the sentence-level (chunk_target_size 1)
-- configurations of the benchmark_configs seed with a source record under that license; a row_id
-- published on several tracks counts once (LICENSES.md, dataset card).
with

benchmark_rows as (select * from {{ ref('mart_benchmark_rows') }}),

configs as (select * from {{ ref('benchmark_configs') }}),

eligible as (select * from {{ ref('int_eligible_sentences') }}),

published as (
    select distinct b.source_id as row_id
    from benchmark_rows as b
    inner join configs as c on b.config = c.config
    where c.chunk_target_size = '1'
),

records as (
    select
        e.row_id,
        unnest(e.source_records) as r
    from eligible as e
    inner join published as p on e.row_id = p.row_id
),

final as (
    select
        r.treebank_source,
        r.license,
        count(distinct records.row_id) as rows
    from records
    group by all
)

select * from final
