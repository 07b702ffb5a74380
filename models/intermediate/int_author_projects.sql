-- The projects annotating each author's eligible rows (by chosen parse), ranked by rows descending,
-- ties by source priority (SPEC §8 "Source-held-out track": the project ranked 2 is held out).
-- Grain: one row per (author, project).
with

eligible as (select * from {{ ref('int_eligible_sentences') }}),

registry as (select * from {{ ref('projects') }}),

author_projects as (
    select
        e.author,
        e.project,
        any_value(e.treebank_source) as treebank_source,
        count(*) as project_rows,
        any_value(p.priority) as priority
    from eligible as e
    inner join registry as p on e.project = p.project
    group by e.author, e.project
),

final as (
    select
        *,
        row_number() over (partition by author order by project_rows desc, priority asc) as project_rank
    from author_projects
)

select * from final
