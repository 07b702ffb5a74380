-- The effect of each merge in the published inventories (SPEC §5 merge table, §11): for every
-- published category that merges pre-merge categories (two or more parts, or one part under
-- another name), one row per part with the part's variation next to the merged category's.
--
-- The merge map is read off the tokens themselves (the map the build actually applied): on the
-- tokens of the qualifying cells, each pre-merge category belongs to the published category of
-- the same kind (for FEATS, the same feature type) it most often becomes; ties go to the
-- alphabetically first. For DEPREL and UPOS the SPEC §5 maps are functions, so this is exact
-- (e.g. vocative -> dep, discourse -> advmod, appos -> nmod); for FEATS it finds the value
-- renames such as Gender=Com -> Gender=Fem,Masc. Pre-merge categories whose feature type is not
-- published (PronType, Definite, ...) have no published category and no row here.
-- part_share_pct: % of the published category's tokens (over the qualifying cells) that carried
-- this part before the merge. Grain: one row per (kind, published_category, part_category).
with

tokens as (
    select * from {{ ref('mart_published_tokens') }}
    where is_first_in_project
),

rates as (select * from {{ ref('mart_rates') }}),

variation as (select * from {{ ref('mart_variation') }}),

cells as (
    select distinct
        author,
        project
    from rates
),

profiles as (
    select
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

profile_ids as (
    select
        row_number() over (order by deprel_ud, deprel, upos_pre_merge, upos, feats_full, feats) as profile_id,
        feats_full,
        feats,
        n
    from profiles
),

pre_merge_feats as (
    select
        profile_id,
        n,
        pair,
        split_part(pair, '=', 1) as feature
    from (
        select
            profile_id,
            n,
            unnest(string_split(coalesce(feats_full, ''), '|')) as pair
        from profile_ids
    ) as pre_merge_pairs
    where pair <> ''
),

published_feats as (
    select
        profile_id,
        pair,
        split_part(pair, '=', 1) as feature
    from (
        select
            profile_id,
            unnest(string_split(coalesce(feats, ''), '|')) as pair
        from profile_ids
    ) as published_pairs
    where pair <> ''
),

feats_parts as (
    -- each pre-merge Feature=Value with the same feature's published value on the same tokens
    select
        pre.n,
        pre.pair,
        pub.pair as published_pair
    from pre_merge_feats as pre
    left join published_feats as pub on pre.profile_id = pub.profile_id and pre.feature = pub.feature
),

pairs as (
    select
        'deprel' as kind,
        deprel_ud as part_category,
        deprel as published_category,
        n
    from profiles
    union all
    select
        'upos' as kind,
        upos_pre_merge as part_category,
        upos as published_category,
        n
    from profiles
    union all
    select
        'feats' as kind,
        pair as part_category,
        published_pair as published_category,
        n
    from feats_parts
),

pair_counts as (
    select
        kind,
        part_category,
        published_category,
        cast(sum(n) as bigint) as n_tokens
    from pairs
    where part_category is not null and published_category is not null
    group by all
),

merge_map as (
    select
        kind,
        part_category,
        published_category,
        n_tokens
    from pair_counts
    qualify row_number() over (
        partition by kind, part_category order by n_tokens desc, published_category asc
    ) = 1
),

merged_categories as (
    select
        kind,
        published_category,
        count(*) as n_parts
    from merge_map
    group by kind, published_category
    having count(*) >= 2 or bool_or(part_category <> published_category)
),

final as (
    select
        m.kind,
        m.published_category,
        m.part_category,
        p.feature,
        m.part_category = m.published_category as is_same_label,
        g.n_parts,
        100.0 * m.n_tokens / pv.n_category_tokens as part_share_pct,
        p.annotator_variation_pp as part_annotator_variation_pp,
        p.authorial_variation_pp as part_authorial_variation_pp,
        p.verdict as part_verdict,
        pv.annotator_variation_pp as merged_annotator_variation_pp,
        pv.authorial_variation_pp as merged_authorial_variation_pp,
        pv.verdict as merged_verdict,
        p.mean_rate_pct as part_mean_rate_pct,
        pv.mean_rate_pct as merged_mean_rate_pct
    from merge_map as m
    inner join merged_categories as g on m.kind = g.kind and m.published_category = g.published_category
    inner join variation as p
        on m.kind = p.kind and p.scheme = 'pre_merge' and m.part_category = p.category
    inner join variation as pv
        on m.kind = pv.kind and pv.scheme = 'published' and m.published_category = pv.category
)

select * from final
