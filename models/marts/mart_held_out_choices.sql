-- The source-held-out choice per author (SPEC §8; build_report.json source_held_out_track): every
-- author with eligible rows, the projects annotating them (by chosen parse, rows descending), the
-- held-out project (second-largest; ties by source priority), candidate rows per split before the
-- bottleneck, published rows per split, and the decision. Grain: one row per author.
-- decision: retained | single_project_author | below_threshold (fewer than 50 candidate rows in
-- train, validation or test; the candidate counts say which).
with

assignments as (select * from {{ ref('mart_split_assignments') }}),

author_projects as (select * from {{ ref('int_author_projects') }}),

held_out_track as (
    select *
    from assignments
    where track = 'source_held_out'
),

per_author_projects as (
    select
        author,
        count(*) as n_projects,
        list(
            struct_pack(project := project, treebank_source := treebank_source, rows := project_rows)
            order by project_rows desc, priority asc
        ) as project_rows
    from author_projects
    group by author
),

per_author as (
    select
        author,
        any_value(held_out_project) as held_out_project,
        any_value(held_out_source) as held_out_source,
        count(*) filter (where project = held_out_project) as held_out_rows,
        count(*) filter (where excluded_reason = 'held_out_project_in_provenance')
            as dropped_provenance_rows,
        count(*) filter (
            where candidate_split = 'train' and excluded_reason is distinct from 'held_out_project_in_provenance'
        ) as candidate_train_rows,
        count(*) filter (where candidate_split = 'validation') as candidate_validation_rows,
        count(*) filter (where candidate_split = 'test') as candidate_test_rows,
        count(*) filter (where split = 'train') as train_rows,
        count(*) filter (where split = 'validation') as validation_rows,
        count(*) filter (where split = 'test') as test_rows
    from held_out_track
    group by author
),

final as (
    select
        a.author,
        p.n_projects,
        p.project_rows,
        a.held_out_project,
        a.held_out_source,
        a.held_out_rows,
        a.dropped_provenance_rows,
        a.candidate_train_rows,
        a.candidate_validation_rows,
        a.candidate_test_rows,
        a.train_rows,
        a.validation_rows,
        a.test_rows,
        a.train_rows > 0 as is_retained,
        case
            when a.held_out_project is null then 'single_project_author'
            when a.train_rows > 0 then 'retained'
            else 'below_threshold'
        end as decision
    from per_author as a
    inner join per_author_projects as p on a.author = p.author
)

select * from final
