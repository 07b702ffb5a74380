-- The authors of one configuration's published rows (dataset_variants.json, SPEC §9).
-- Parameter: $config.
select distinct author
from {{ ref('mart_benchmark_rows') }}
where config = $config
order by author
