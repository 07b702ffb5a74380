-- Every row of the audited export files (sphragis audit, SPEC §11): per row its configuration,
-- split, 0-based row number in its file, labels and the per-unit lists the audit reads.
-- Parameters: $paths, the Parquet files; the registered table audit_inputs (path, cfg, split)
-- names the configuration and split of each. Grain: one row per (file, row).
with

inputs as (select * from audit_inputs),

files as (
    select * from read_parquet($paths, filename = true, file_row_number = true, union_by_name = true)
)

select
    inputs.cfg,
    inputs.split,
    files.file_row_number as r,
    files.id,
    files.author,
    files.treebank_source,
    files.dedup_key,
    files.text,
    files.conllu
from files
inner join inputs on files.filename = inputs.path
