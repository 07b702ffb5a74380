-- Which DEPREL values vary more between projects than between authors? (SPEC §11)
-- Annotator and authorial variation in percentage points, largest excess first, before the merge
-- (`pre_merge`: deprel_ud) and after it (`published`); `published_as` names the published value a
-- pre-merge relation is merged into (`discourse` into `advmod`).
select
    scheme,
    category as deprel,
    published_as,
    round(annotator_variation_pp, 2) as annotator_pp,
    round(authorial_variation_pp, 2) as authorial_pp,
    n_authors_multi_project as n_authors,
    n_projects_multi_author as n_projects
from mart_variation
where kind = 'deprel' and verdict = 'convention'
order by scheme asc, annotator_variation_pp - authorial_variation_pp desc, category asc
