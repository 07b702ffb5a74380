-- The work-held-out choice per author (SPEC §8; build_report.json work_held_out_track):
-- every author with eligible rows, their works with the split each went to (rule in
-- int_work_held_out_choice), candidate rows per split before the author threshold and the
-- bottleneck, training rows dropped as twins of an evaluation row (passage overlap, SPEC §7.1),
-- published rows per split, and the decision. Grain: one row per author.
-- decision: retained | single_work_author | fewer_than_three_works | below_threshold (fewer than
-- 50 candidate rows in train, validation or test; the candidate counts say which).
with

assignments as (select * from {{ ref('mart_split_assignments') }}),

work_choice as (select * from {{ ref('int_work_held_out_choice') }}),

work_track as (
    select *
    from assignments
    where track = 'work_held_out'
),

per_author_works as (
    select
        author,
        any_value(n_works) as n_works,
        any_value(author_rows) as eligible_rows,
        any_value(target_rows) as target_rows,
        list(
            struct_pack(work_id := work_id, work := work, rows := work_rows, split := work_split)
            order by work_id
        ) as works,
        list(work_id order by work_id) filter (where work_split = 'validation') as validation_works,
        list(work_id order by work_id) filter (where work_split = 'test') as test_works,
        list(work_id order by work_id) filter (where work_split = 'train') as train_works,
        string_agg(work, '; ' order by work_id) filter (where work_split = 'validation') as validation_titles,
        string_agg(work, '; ' order by work_id) filter (where work_split = 'test') as test_titles
    from work_choice
    group by author
),

per_author as (
    select
        author,
        count(*) filter (where excluded_reason = 'overlaps_evaluation_row') as dropped_twin_rows,
        count(*) filter (where excluded_reason = 'overlap_author_conflict') as dropped_conflict_rows,
        count(*) filter (
            where candidate_split = 'train' and excluded_reason is distinct from 'overlaps_evaluation_row'
            and excluded_reason is distinct from 'overlap_author_conflict'
        ) as candidate_train_rows,
        count(*) filter (
            where candidate_split = 'validation' and excluded_reason is distinct from 'overlap_author_conflict'
        ) as candidate_validation_rows,
        count(*) filter (
            where candidate_split = 'test' and excluded_reason is distinct from 'overlap_author_conflict'
        ) as candidate_test_rows,
        count(*) filter (where split = 'train') as train_rows,
        count(*) filter (where split = 'validation') as validation_rows,
        count(*) filter (where split = 'test') as test_rows
    from work_track
    group by author
),

final as (
    select
        a.author,
        w.n_works,
        w.eligible_rows,
        w.target_rows,
        w.works,
        coalesce(w.validation_works, []) as validation_works,
        coalesce(w.test_works, []) as test_works,
        coalesce(w.train_works, []) as train_works,
        w.validation_titles,
        w.test_titles,
        a.dropped_twin_rows,
        a.dropped_conflict_rows,
        a.candidate_train_rows,
        a.candidate_validation_rows,
        a.candidate_test_rows,
        a.train_rows,
        a.validation_rows,
        a.test_rows,
        a.train_rows > 0 as is_retained,
        case
            when w.n_works = 1 then 'single_work_author'
            when w.n_works = 2 then 'fewer_than_three_works'
            when a.train_rows > 0 then 'retained'
            else 'below_threshold'
        end as decision
    from per_author as a
    inner join per_author_works as w on a.author = w.author
)

select * from final
