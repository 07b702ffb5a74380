-- Every distinct unit (by dedup_key) of the audited files with its text and CoNLL-U (from
-- audit_payloads, which holds every key); unit_idx is the 0-based rank of the key (the row of the
-- unit in the feature matrices).
with

flat as (
    select
        unnest(dedup_key) as k,
        unnest(text) as unit_text,
        unnest(conllu) as unit_conllu
    from audit_payloads
)

select
    row_number() over (order by k) - 1 as unit_idx,
    k,
    any_value(unit_text) as unit_text,
    any_value(unit_conllu) as unit_conllu
from flat
group by k
