-- Per (treebank_source, license): published rows of the sentence-level (chunk_target_size 1)
-- configurations of the benchmark_configs seed with a source record under that license; a row_id
-- published on both tracks counts once (LICENSES.md, dataset card).
with

published as (
    select distinct b.id as row_id
    from mart_benchmark_rows as b
    inner join benchmark_configs as c on b.config = c.config
    where c.chunk_target_size = '1'
),

records as (
    select
        e.row_id,
        unnest(e.source_records) as r
    from int_eligible_sentences as e
    inner join published as p on e.row_id = p.row_id
)

select
    r.treebank_source,
    r.license,
    count(distinct records.row_id) as rows
from records
group by all
order by all
