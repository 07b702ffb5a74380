-- The distinct features of audit_features, sorted: the columns of the feature matrix that
-- audit_feature_triplets fills (sphragis audit, SPEC §11).
select distinct feature
from audit_features
order by feature
