-- Rows of audit_files whose per-unit lists differ in length (dedup_key, text, conllu and
-- treebank_source need one entry per unit); the first, or none.
select
    cfg,
    split,
    r
from audit_files
where
    len(dedup_key) <> len(text)
    or len(text) <> len(conllu)
    or len(treebank_source) <> len(text)
order by cfg, split, r
limit 1
