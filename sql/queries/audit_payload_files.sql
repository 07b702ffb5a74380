-- The files whose unit payloads (text, CoNLL-U) the audit reads (sphragis audit, SPEC §11): for
-- every distinct unit key, the first input file (lowest file_idx) that holds it; a unit's payload
-- is the same in every file holding it (the export writes one record per dedup_key), so these
-- files hold every unit once at least and the others need not be decoded. Grain: one row per
-- file, ordered by file_idx.
with

keys as (
    select
        file_idx,
        unnest(dedup_key) as k
    from audit_files
),

first_files as (
    select min(file_idx) as file_idx
    from keys
    group by k
)

select distinct file_idx
from first_files
order by file_idx
