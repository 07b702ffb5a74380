-- Annotator versus authorial variation per category (SPEC §11; seed 000 "What annotator
-- variation remains"), in percentage points, from the cell rates of mart_rates:
--
--   annotator variation = mean over authors with >= 2 qualifying cells (projects) of the mean
--                         absolute pairwise difference of that author's rates between projects;
--   authorial variation = mean over projects with >= 3 qualifying cells (authors) of the mean
--                         absolute pairwise difference of that project's rates between authors.
--
-- verdict: 'convention' when annotator variation exceeds authorial variation (the category fails
-- the test: it tells annotators apart more than authors), else 'style'; NULL when either figure is
-- undefined (no multi-project author or no project with three authors).
--
-- published_as says where a pre-merge category went in the published inventories (int_merge_map:
-- discourse -> advmod), merged_from which pre-merge categories a published one holds, so a
-- category that has no published value of its own says so here. Grain: one row per
-- (kind, scheme, category).
with

rates as (select * from {{ ref('mart_rates') }}),

merge_map as (select * from {{ ref('int_merge_map') }}),

cells as (
    select distinct
        author,
        project
    from rates
),

multi_project_authors as (
    select author
    from cells
    group by author
    having count(*) >= 2
),

multi_author_projects as (
    select project
    from cells
    group by project
    having count(*) >= 3
),

author_means as (
    -- per multi-project author: mean |rate(c, a, p1) - rate(c, a, p2)| over project pairs p1 < p2
    {{ mean_abs_pairwise_diff('rates', 'author', 'project', 'multi_project_authors') }}
),

project_means as (
    -- per project with >= 3 authors: mean |rate(c, a1, p) - rate(c, a2, p)| over a1 < a2
    {{ mean_abs_pairwise_diff('rates', 'project', 'author', 'multi_author_projects') }}
),

annotator as (
    select
        kind,
        scheme,
        category,
        avg(mean_abs_diff) as annotator_variation_pp,
        count(*) as n_authors_multi_project
    from author_means
    group by kind, scheme, category
),

authorial as (
    select
        kind,
        scheme,
        category,
        avg(mean_abs_diff) as authorial_variation_pp,
        count(*) as n_projects_multi_author
    from project_means
    group by kind, scheme, category
),

categories as (
    select
        kind,
        scheme,
        category,
        any_value(feature) as feature,
        any_value(value) as value,
        count(*) as n_cells,
        cast(sum(n_category_tokens) as bigint) as n_category_tokens,
        avg(rate_pct) as mean_rate_pct,
        min(rate_pct) as min_rate_pct,
        max(rate_pct) as max_rate_pct
    from rates
    group by kind, scheme, category
),

merged_from as (
    -- the pre-merge categories each published category holds (`Feature=(absent)`: tokens whose
    -- pre-merge FEATS had no value of the feature)
    select
        kind,
        published_category,
        list(part_category order by part_category) as merged_from
    from merge_map
    group by kind, published_category
),

final as (
    select
        c.kind,
        c.scheme,
        c.category,
        c.feature,
        c.value,
        case when c.scheme = 'published' then c.category else pm.published_category end as published_as,
        mf.merged_from,
        an.annotator_variation_pp,
        au.authorial_variation_pp,
        an.annotator_variation_pp - au.authorial_variation_pp as excess_pp,
        case
            when an.annotator_variation_pp is null or au.authorial_variation_pp is null then null
            when an.annotator_variation_pp > au.authorial_variation_pp then 'convention'
            else 'style'
        end as verdict,
        coalesce(an.n_authors_multi_project, 0) as n_authors_multi_project,
        coalesce(au.n_projects_multi_author, 0) as n_projects_multi_author,
        c.n_cells,
        c.n_category_tokens,
        c.mean_rate_pct,
        c.min_rate_pct,
        c.max_rate_pct
    from categories as c
    left join annotator as an on c.kind = an.kind and c.scheme = an.scheme and c.category = an.category
    left join authorial as au on c.kind = au.kind and c.scheme = au.scheme and c.category = au.category
    left join merge_map as pm on c.scheme = 'pre_merge' and c.kind = pm.kind and c.category = pm.part_category
    left join merged_from as mf
        on c.scheme = 'published' and c.kind = mf.kind and c.category = mf.published_category
)

select * from final
