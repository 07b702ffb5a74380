-- The causes of mart_seed_reconciliation in long form: one row per (author, split,
-- cause) with a non-zero row count, signed as this build minus seed 000's table, and a detail
-- naming what it is (the registry documents a profile decides differently, the dedup key, the
-- missing upstream files with their independent estimates). Per (author, split) the rows add up
-- to diff_rows. Grain: one row per (author, split, cause).
with

reconciliation as (select * from {{ ref('mart_seed_reconciliation') }}),

registry as (select * from {{ ref('int_works_registry') }}),

missing as (select * from {{ ref('mart_missing_file_estimates') }}),

overrides as (
    select
        author,
        string_agg(
            distinct work || ' (' || default_decision || ' by default, ' || decision || ' in ' || registry_profile || ')',
            '; ' order by work || ' (' || default_decision || ' by default, ' || decision || ' in ' || registry_profile || ')'
        ) as detail
    from registry
    where is_profile_override
    group by author
),

files as (
    select
        author,
        string_agg(
            path || ' (' || treebank_source || ', estimated '
            || coalesce(format('{:,}', estimated_rows) || ' eligible sentences', 'size unknown') || ')',
            '; ' order by path
        ) as detail
    from missing
    where coalesce(estimated_rows, 1) > 0
    group by author
),

causes as (
    select
        r.author,
        r.split,
        c.cause,
        c.cause_order,
        c.rows
    from reconciliation as r
    cross join lateral (
        values
        ('curation_decision', 1, r.curation_rows),
        ('dedup_key', 2, r.dedup_rows),
        ('bottleneck', 3, r.bottleneck_rows),
        ('overlap_split', 4, r.overlap_rows),
        ('missing_upstream_file', 5, r.missing_file_rows),
        ('unexplained', 6, r.unexplained_rows)
    ) as c (cause, cause_order, rows)
),

final as (
    select
        c.author,
        c.split,
        c.cause,
        c.cause_order,
        c.rows,
        case c.cause
            when 'curation_decision' then o.detail
            when 'dedup_key' then 'seed 000 keyed the source spelling (elision marks and look-alike letters not yet unified): a letter-like mark such as U+02BC kept two records of one sentence apart'
            when 'bottleneck' then 'cut to a multiple of 50 rows per author and split'
            when 'overlap_split' then 'passage-overlap rules of the split profile (each overlap group in one split; conflict pairs omitted)'
            when 'missing_upstream_file' then f.detail
        end as detail
    from causes as c
    left join overrides as o on c.author = o.author
    left join files as f on c.author = f.author
    where c.rows <> 0
)

select * from final
