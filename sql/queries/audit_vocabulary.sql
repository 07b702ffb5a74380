-- The markup features of the audited units, sorted: the columns of the markup feature matrix
-- (sphragis audit, SPEC §11).
select distinct feature
from audit_markup
order by feature
