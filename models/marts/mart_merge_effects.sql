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

cell_profiles as (select * from {{ ref('int_cell_profiles') }}),

variation as (select * from {{ ref('mart_variation') }}),

profiles as (
    -- the distinct annotations over all qualifying cells (those of mart_rates)
    select
        deprel_ud,
        deprel,
        upos_pre_merge,
        upos,
        feats_full,
        feats,
        cast(sum(n) as bigint) as n
    from cell_profiles
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

feats_pairs as (
    -- every Feature=Value pair of a profile, before (pre_merge) and after (published) the merges
    select
        profile_id,
        n,
        scheme,
        pair,
        split_part(pair, '=', 1) as feature
    from (
        select
            profile_id,
            n,
            unnest(  -- noqa: AL03
                list_transform(
                    string_split(coalesce(feats_full, ''), '|'), lambda v: { 'scheme': 'pre_merge', 'pair': v }
                )
                || list_transform(
                    string_split(coalesce(feats, ''), '|'), lambda v: { 'scheme': 'published', 'pair': v }
                ),
                recursive := true
            )
        from profile_ids
    ) as profile_pairs
    where pair <> ''
),

feats_parts as (
    -- each pre-merge Feature=Value with the same feature's published value on the same tokens
    select
        pre.n,
        pre.pair,
        pub.pair as published_pair
    from feats_pairs as pre
    left join feats_pairs as pub
        on pre.profile_id = pub.profile_id and pre.feature = pub.feature and pub.scheme = 'published'
    where pre.scheme = 'pre_merge'
    union all
    -- a published Feature=Value whose tokens carried no value of that feature before the merge
    -- (the source FEATS lack it, the tag gives it: UD Perseus gerundives have no VerbForm) is a
    -- part too, `Feature=(absent)`, so that the parts of every merge add up to its tokens
    select
        pub.n,
        pub.feature || '=(absent)' as pair,
        pub.pair as published_pair
    from feats_pairs as pub
    where
        pub.scheme = 'published'
        and not exists (
            select 1 from feats_pairs as pre
            where pre.profile_id = pub.profile_id and pre.feature = pub.feature and pre.scheme = 'pre_merge'
        )
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
    -- an absent part is one part of each published value it becomes
    qualify row_number() over (
        partition by kind, part_category, if(part_category like '%=(absent)', published_category, null)
        order by n_tokens desc, published_category asc
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
        coalesce(p.feature, pv.feature) as feature,
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
    left join variation as p
        on m.kind = p.kind and p.scheme = 'pre_merge' and m.part_category = p.category
    inner join variation as pv
        on m.kind = pv.kind and pv.scheme = 'published' and m.published_category = pv.category
)

select * from final
