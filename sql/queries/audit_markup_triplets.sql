-- The markup feature counts as sparse-matrix triplets: unit_idx (row), j (the feature's 0-based
-- rank among the distinct features, the column) and n (count).
with

vocabulary as (
    select
        feature,
        row_number() over (order by feature) - 1 as j
    from (select distinct feature from audit_markup) as distinct_features
)

select
    m.unit_idx,
    v.j,
    m.n
from audit_markup as m
inner join vocabulary as v on m.feature = v.feature
