-- The per-unit payload lists of the files audit_payload_files names (sphragis audit, SPEC §11):
-- per row its configuration, split and 0-based row number r, its unit keys, texts and CoNLL-U.
-- Parameters: $paths, those files; the registered table audit_inputs (path, cfg, split, file_idx).
-- Grain: one row per (file, row).
with

inputs as (select * from audit_inputs),

files as (
    select
        filename,
        file_row_number,
        dedup_key,
        text,
        conllu
    from read_parquet($paths, filename = true, file_row_number = true, union_by_name = true)
)

select
    inputs.cfg,
    inputs.split,
    files.file_row_number as r,
    files.dedup_key,
    files.text,
    files.conllu
from files
inner join inputs on files.filename = inputs.path
