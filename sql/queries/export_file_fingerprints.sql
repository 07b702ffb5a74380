-- One md5 per (config, split) over what its exported file is written from (sphragis export, SPEC
-- §9; export/export_state.py): its rows in output order, each as the md5 of the whole row of
-- mart_benchmark_rows with the content hashes of the units it holds in the order it holds them
-- (a sentence row holds itself). unit_h (row_id, h: the content hash of every published unit) is
-- registered by the caller; a unit without a hash counts as 'missing:<row_id>'.
with

refs as (
    select
        b.config,
        b.split,
        b.row_order,
        md5(cast(b as varchar)) as row_h,
        b.row_ids as unit_ids
    from {{ ref('mart_benchmark_rows') }} as b
),

flat as (
    select
        config,
        split,
        row_order,
        unnest(unit_ids) as row_id,
        generate_subscripts(unit_ids, 1) as pos
    from refs
),

row_units as (
    select
        f.config,
        f.split,
        f.row_order,
        string_agg(coalesce(u.h, 'missing:' || f.row_id), ',' order by f.pos) as units_h
    from flat as f
    left join unit_h as u on f.row_id = u.row_id
    group by all
)

select
    r.config,
    r.split,
    md5(string_agg(r.row_h || '|' || coalesce(ru.units_h, ''), chr(10) order by r.row_order)) as file_h
from refs as r
left join row_units as ru
    on r.config = ru.config and r.split = ru.split and r.row_order = ru.row_order
group by all
