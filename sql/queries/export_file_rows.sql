-- What each exported file is written from, per row (sphragis export, SPEC §9; the fingerprints of
-- export/export_state.py): the configuration, split and output order of every published row, the
-- md5 of the whole row, and the ids of the units it holds in order (a sentence row holds itself).
select
    b.config,
    b.split,
    b.row_order,
    md5(cast(b as varchar)) as row_h,
    coalesce(b.constituent_ids, [b.id]) as unit_ids
from {{ ref('mart_benchmark_rows') }} as b
