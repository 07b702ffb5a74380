-- The feature counts of audit_features (row_idx, feature, n: the audit's markup features per unit,
-- or its character n-grams per distinct word) as sparse-matrix triplets: row_idx (the row), j (the
-- feature's 0-based rank among the distinct features, the column; audit_vocabulary in the same
-- order) and n (count). sphragis audit, SPEC §11.
with

vocabulary as (
    select
        feature,
        row_number() over (order by feature) - 1 as j
    from (select distinct feature from audit_features) as distinct_features
)

select
    f.row_idx,
    v.j,
    f.n
from audit_features as f
inner join vocabulary as v on f.feature = v.feature
