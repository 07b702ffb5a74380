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

tokens as (
    select * from {{ ref('mart_published_tokens') }}
    where is_first_in_project
),

cells as (
    select
        author,
        project,
        count(*) as n_tokens
    from tokens
    group by author, project
    having count(*) >= {{ var('min_cell_tokens') }}
),

profiles as (
    -- distinct annotations per cell with their token counts (far fewer rows than tokens)
    select
        t.author,
        t.project,
        t.deprel_ud,
        t.deprel,
        coalesce(t.upos_source, t.upos) as upos_pre_merge,
        t.upos,
        t.feats_full,
        t.feats,
        count(*) as n
    from tokens as t
    inner join cells as c on t.author = c.author and t.project = c.project
    group by all
),

feats_pairs as (
    select
        author,
        project,
        n,
        'pre_merge' as scheme,
        unnest(string_split(coalesce(feats_full, ''), '|')) as pair
    from profiles
    union all
    select
        author,
        project,
        n,
        'published' as scheme,
        unnest(string_split(coalesce(feats, ''), '|')) as pair
    from profiles
),

token_categories as (
    select
        author,
        project,
        n,
        'deprel' as kind,
        'pre_merge' as scheme,
        cast(null as varchar) as feature,
        deprel_ud as value
    from profiles
    union all
    select
        author,
        project,
        n,
        'deprel' as kind,
        'published' as scheme,
        null as feature,
        deprel as value
    from profiles
    union all
    select
        author,
        project,
        n,
        'upos' as kind,
        'pre_merge' as scheme,
        null as feature,
        upos_pre_merge as value
    from profiles
    union all
    select
        author,
        project,
        n,
        'upos' as kind,
        'published' as scheme,
        null as feature,
        upos as value
    from profiles
    union all
    select
        author,
        project,
        n,
        'feats' as kind,
        scheme,
        split_part(pair, '=', 1) as feature,
        substr(pair, strpos(pair, '=') + 1) as value
    from feats_pairs
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
