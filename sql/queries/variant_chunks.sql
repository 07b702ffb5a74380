-- The chunks of one configuration in split and row order, with their constituent sentence ids
-- (dataset_variants.json, SPEC §9). Parameter: $config.
select
    split,
    id as chunk_id,
    author,
    constituent_ids,
    chunk_is_mixed_work
from {{ ref('mart_benchmark_rows') }}
where config = $config
order by split, row_order
