-- Every row of the audited export files (sphragis audit, SPEC §11): per row its configuration,
-- split, the file's rank file_idx among the inputs, its 0-based row number r in its file, labels,
-- genre and work (the audit's lookup baselines and confounds) and unit keys. The unit payloads (text, CoNLL-U) are read apart, from the fewest files
-- (audit_payload_files, audit_payloads). Parameters: $paths, the Parquet files; the registered
-- table audit_inputs (path, cfg, split, file_idx) names the configuration and split of each.
-- Grain: one row per (file, row).
with

inputs as (select * from audit_inputs),

files as (
    select
        filename,
        file_row_number,
        id,
        author,
        genre,
        work_id,
        treebank_source,
        dedup_key
    from read_parquet($paths, filename = true, file_row_number = true, union_by_name = true)
)

select
    inputs.cfg,
    inputs.split,
    inputs.file_idx,
    files.file_row_number as r,
    files.id,
    files.author,
    files.genre,
    files.work_id,
    files.treebank_source,
    files.dedup_key
from files
inner join inputs on files.filename = inputs.path
