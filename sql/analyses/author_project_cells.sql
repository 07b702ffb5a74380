-- The (author, project) cells behind the variation figures: tokens per cell, and whether the
-- cell enters the annotator figure (author in >= 2 projects) or the authorial one (project with
-- >= 3 authors).
with

cells as (
    select distinct
        author,
        project,
        n_tokens
    from mart_rates
)

select
    author,
    project,
    n_tokens,
    count(*) over (partition by author) >= 2 as in_annotator_variation,
    count(*) over (partition by project) >= 3 as in_authorial_variation
from cells
order by author asc, n_tokens desc, project asc
