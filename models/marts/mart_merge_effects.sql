-- The effect of each merge in the published inventories (SPEC §5 merge table, §11): for every
-- published category that merges pre-merge categories (two or more parts, or one part under
-- another name), one row per part with the part's variation next to the merged category's.
--
-- The merge map is int_merge_map (read off the tokens: the map the build actually applied).
-- part_share_pct: % of the published category's tokens (over the qualifying cells) that carried
-- this part before the merge. Grain: one row per (kind, published_category, part_category).
with

merge_map as (select * from {{ ref('int_merge_map') }}),

variation as (select * from {{ ref('mart_variation') }}),

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
