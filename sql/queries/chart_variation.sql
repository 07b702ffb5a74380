-- Every category of mart_variation with its verdict and variation figures (docs-site variation
-- charts, SPEC §11).
select
    kind,
    scheme,
    category,
    feature,
    value,
    annotator_variation_pp,
    authorial_variation_pp,
    excess_pp,
    verdict,
    n_authors_multi_project,
    n_projects_multi_author,
    n_cells,
    mean_rate_pct,
    min_rate_pct,
    max_rate_pct
from mart_variation
order by kind, scheme, category
