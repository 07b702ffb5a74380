-- Rows whose per-unit lists differ in length (dedup_key and treebank_source of every audited row;
-- text and conllu too where the payloads are read, audit_payloads): the first, or none.
with

ragged as (
    select
        cfg,
        split,
        r
    from audit_files
    where len(treebank_source) <> len(dedup_key)
    union all
    select
        cfg,
        split,
        r
    from audit_payloads
    where len(dedup_key) <> len(text) or len(text) <> len(conllu)
)

select
    cfg,
    split,
    r
from ragged
order by cfg, split, r
limit 1
