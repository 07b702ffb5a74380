-- Every category of mart_variation with a verdict: the points of the report's variation chart.
select
    kind,
    scheme,
    category,
    annotator_variation_pp,
    authorial_variation_pp,
    verdict
from mart_variation
where verdict is not null
order by kind, scheme, category
