-- The rate of every category per (author, project) cell (docs-site variation charts, SPEC §11).
select
    kind,
    scheme,
    category,
    author,
    project,
    n_tokens,
    n_category_tokens,
    rate_pct
from mart_rates
order by kind, scheme, category, author, project
