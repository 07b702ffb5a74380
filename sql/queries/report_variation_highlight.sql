-- The mart_variation rows the report highlights (seed 000 "What annotator variation remains"):
-- the DEPREL categories $deprels (in that order) and every category of the feature $feature.
select *
from {{ ref('mart_variation') }}
where (kind = 'deprel' and list_contains($deprels, category)) or feature = $feature
order by
    kind asc,
    case when kind = 'deprel' then list_position($deprels, category) end asc,
    category asc,
    scheme asc
