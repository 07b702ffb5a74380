-- Rows × units incidence of one (configuration, split): (r, unit_idx) for every unit of every row.
-- Parameters: $cfg, $split.
with

row_units as (
    select
        r,
        unnest(dedup_key) as k
    from audit_rows
    where cfg = $cfg and split = $split
)

select
    row_units.r,
    audit_units.unit_idx
from row_units
inner join audit_units on row_units.k = audit_units.k
