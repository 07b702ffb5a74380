-- The rows of the audited files with their labels and unit keys (sphragis audit, SPEC §11):
-- audit_files without the file rank. Grain: one row per (cfg, split, r).
select
    cfg,
    split,
    r,
    id,
    author,
    genre,
    work_id,
    treebank_source,
    dedup_key
from audit_files
