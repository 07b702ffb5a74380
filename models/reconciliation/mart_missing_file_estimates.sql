-- Upstream files missing from the mirror, per author label they would have supplied, with an
-- independent estimate of the eligible sentences they would have added. For a UD
-- train file the pinned revision's stats.xml gives the file's sentence count; the author's
-- eligible rows that the same treebank's dev and test files supply alone (no other project has
-- them: a duplicate of a present sentence adds no row) are scaled by train / (dev + test)
-- sentences. NULL where the revision's other files hold nothing of the author, or the file is
-- not a UD split file (no count is known). mart_seed_reconciliation attributes to these files
-- the rows that remain between seed 000's table and the counterfactual build. Grain: one row per
-- (missing file, author).
with

file_authors as (select * from {{ ref('int_missing_file_authors') }}),

eligible as (select * from {{ ref('int_eligible_sentences') }}),

row_projects as (
    select
        author,
        len(projects) as n_projects,
        unnest(projects) as project
    from eligible
),

present as (
    select
        project,
        author,
        count(*) as project_rows,
        count(*) filter (where n_projects = 1) as project_only_rows
    from row_projects
    group by project, author
),

final as (
    select
        f.path,
        f.snapshot,
        f.treebank_source,
        f.revision,
        f.author,
        f.registry_documents,
        f.split_sentences,
        f.devtest_sentences,
        coalesce(p.project_rows, 0) as present_rows,
        coalesce(p.project_only_rows, 0) as present_project_only_rows,
        case
            when f.split_sentences is not null and p.project_rows > 0
                then round(p.project_only_rows * f.split_sentences / f.devtest_sentences)::integer
        end as estimated_rows,
        case
            when f.split_sentences is null
                then 'none: not a UD split file, the pinned revision states no sentence count'
            when coalesce(p.project_rows, 0) = 0
                then 'none: the revision''s other files hold no sentence of this author'
            else 'stats.xml train sentences / (dev + test) x the author''s dev+test rows no other project has'
        end as estimate_basis
    from file_authors as f
    left join present as p on f.project = p.project and f.author = p.author
)

select * from final
