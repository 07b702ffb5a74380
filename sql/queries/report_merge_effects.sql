-- Every row of mart_merge_effects in the report's order: by kind and published category, the
-- parts with the largest share first.
select *
from mart_merge_effects
order by kind asc, published_category asc, part_share_pct desc, part_category asc
