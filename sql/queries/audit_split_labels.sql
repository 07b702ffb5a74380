-- Id, author, project label, genre and work of every row of one (configuration, split), in row order.
-- The project is the most frequent treebank_source among the row's units (ties: the earliest unit).
-- Parameters: $cfg, $split.
with

split_rows as (
    select * from audit_rows
    where cfg = $cfg and split = $split
),

sources as (
    select
        r,
        unnest(treebank_source) as source,
        generate_subscripts(treebank_source, 1) as pos
    from split_rows
),

ranked as (
    select
        r,
        source,
        count(*) as n,
        min(pos) as first_pos
    from sources
    group by r, source
),

project as (
    select
        r,
        source
    from ranked
    qualify row_number() over (partition by r order by n desc, first_pos asc) = 1
)

select
    split_rows.r,
    split_rows.author,
    project.source,
    split_rows.id,
    split_rows.genre,
    split_rows.work_id
from split_rows
left join project on split_rows.r = project.r
order by split_rows.r
