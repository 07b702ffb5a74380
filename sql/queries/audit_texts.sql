-- The text of every audited unit in unit_idx order: the rows of the character n-gram matrix
-- (sphragis audit, SPEC §11).
select unit_text
from audit_units
order by unit_idx
