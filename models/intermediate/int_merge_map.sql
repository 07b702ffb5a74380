-- The merge map of the published inventories (SPEC §5 merge table), read off the tokens
-- themselves (the map the build actually applied): on the tokens of the qualifying cells of
-- int_cell_profiles, each pre-merge category belongs to the published category of the same kind
-- (for FEATS, the same feature type) it most often becomes; ties go to the alphabetically first.
-- For DEPREL and UPOS the SPEC §5 maps are functions, so this is exact (vocative -> dep,
-- discourse -> advmod, appos -> nmod); for FEATS it finds the value renames such as Gender=Com ->
-- Gender=Fem,Masc. Pre-merge categories whose feature type is not published (PronType,
-- Definite, ...) have no published category and no row here. A published Feature=Value whose
-- tokens carried no value of the feature before the merge is the part `Feature=(absent)`, one per
-- published value. Read by mart_merge_effects, mart_rates and mart_variation (published_as).
-- Grain: one row per (kind, part_category), and per published value for the absent parts.
with

cell_profiles as (select * from {{ ref('int_cell_profiles') }}),

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

final as (
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
)

select * from final
