-- Category rates per (author, project) cell (SPEC §11): rate(c, a, p) = % of the tokens of author
-- a in project p that carry category c. Cells are counted on the eligible sentences of
-- mart_published_tokens, one record per dedup group and project (is_first_in_project), and only
-- cells with at least var('min_cell_tokens') tokens qualify.
--
-- Categories, each under scheme 'pre_merge' (the UD v2 / source values the warehouse keeps) and
-- 'published' (the SPEC §5 inventories):
--   kind 'deprel': pre_merge = deprel_ud (subtypes kept), published = deprel;
--   kind 'upos':   pre_merge = the source UPOS where the project has one (UD projects), else the
--                  tag-derived UPOS; published = upos;
--   kind 'feats':  every `Feature=Value` pair (multi-values such as Gender=Fem,Masc are one value)
--                  of feats_full (pre_merge) and feats (published).
-- Every category observed in a qualifying cell gets a row for every qualifying cell of its kind
-- and scheme, with rate 0 where the cell never carries it: the variation means need the zeros.
-- Grain: one row per (kind, scheme, category, author, project).
with

profiles as (select * from {{ ref('int_cell_profiles') }}),

cells as (
    select distinct
        author,
        project,
        cell_tokens as n_tokens
    from profiles
),

-- every (kind, scheme) category of a profile: DEPREL and UPOS values, and each `Feature=Value`
-- pair of the FEATS strings
token_categories as (
    select
        author,
        project,
        n,
        kind,
        scheme,
        case when kind = 'feats' then split_part(category, '=', 1) end as feature,
        case when kind = 'feats' then substr(category, strpos(category, '=') + 1) else category end as value
    from (
        select
            author,
            project,
            n,
            unnest(  -- noqa: AL03
                [
                    { 'kind': 'deprel', 'scheme': 'pre_merge', 'category': deprel_ud },
                    { 'kind': 'deprel', 'scheme': 'published', 'category': deprel },
                    { 'kind': 'upos', 'scheme': 'pre_merge', 'category': upos_pre_merge },
                    { 'kind': 'upos', 'scheme': 'published', 'category': upos }
                ]
                || list_transform(
                    string_split(coalesce(feats_full, ''), '|'),
                    lambda v: { 'kind': 'feats', 'scheme': 'pre_merge', 'category': v }
                )
                || list_transform(
                    string_split(coalesce(feats, ''), '|'),
                    lambda v: { 'kind': 'feats', 'scheme': 'published', 'category': v }
                ),
                recursive := true
            )
        from profiles
    ) as profile_categories
),

category_counts as (
    select
        kind,
        scheme,
        feature,
        value,
        author,
        project,
        cast(sum(n) as bigint) as n_category_tokens
    from token_categories
    where value is not null and value <> ''
    group by all
),

categories as (
    select distinct
        kind,
        scheme,
        feature,
        value
    from category_counts
),

final as (
    select
        k.kind,
        k.scheme,
        k.feature,
        k.value,
        coalesce(k.feature || '=', '') || k.value as category,
        c.author,
        c.project,
        c.n_tokens,
        coalesce(n.n_category_tokens, 0) as n_category_tokens,
        100.0 * coalesce(n.n_category_tokens, 0) / c.n_tokens as rate_pct
    from categories as k
    cross join cells as c
    left join category_counts as n
        on
            k.kind = n.kind
            and k.scheme = n.scheme
            and k.feature is not distinct from n.feature
            and k.value = n.value
            and c.author = n.author
            and c.project = n.project
)

select * from final
