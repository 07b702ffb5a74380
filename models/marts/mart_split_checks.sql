-- Cross-model invariants of the splits and chunks (SPEC §8), one row per
-- check with the number of offending rows; _splits.yml requires every count to be zero.
--   author_missing_split: a published (track, author) lacking train, validation or test.
--   eval_shares_dedup_key_with_train: a row of an evaluation split (validation, test: seed
--     benchmark_splits) whose dedup_key is a training row's dedup_key on the same track.
--   held_out_train_has_held_out_project: a source_held_out training row with the author's
--     held-out project anywhere in its provenance.
--   held_out_eval_not_from_held_out_project: a source_held_out validation/test row whose parse is
--     not from the author's held-out project.
--   work_in_two_splits: a (author, work_id) of the work_held_out track published in more than one
--     split (a work never straddles splits there).
--   chunk_coverage: per chunk configuration and split, _1 rows missing from the chunks, chunk
--     constituents that are not _1 rows of that track and split, and constituents used twice.
--   chunk_size: chunk_size differs from chunk_target_size or from the number of constituents.
--   chunk_mixed_flag: chunk_is_mixed_work differs from "contains residual work tails".
with

split_rows as (select * from {{ ref('mart_split_rows') }}),

chunks as (select * from {{ ref('mart_chunks') }}),

choices as (select * from {{ ref('mart_held_out_choices') }}),

eligible as (select * from {{ ref('int_eligible_sentences') }}),

benchmark_splits as (select * from {{ ref('benchmark_splits') }}),

chunked_configs as (
    select
        config,
        track
    from {{ ref('benchmark_configs') }}
    where chunk_target_size > 1
),

author_splits as (
    select
        track,
        author,
        count(distinct split) as n_splits
    from split_rows
    group by track, author
),

author_missing_split as (
    select count(*) as failing_rows
    from author_splits
    where n_splits <> (select count(*) from benchmark_splits)
),

eval_shares_dedup_key_with_train as (
    select count(*) as failing_rows
    from split_rows as e
    inner join benchmark_splits as s on e.split = s.split
    inner join split_rows as t
        on e.track = t.track and e.dedup_key = t.dedup_key and t.split = 'train'
    where s.is_evaluation
),

work_in_two_splits as (
    select count(*) as failing_rows
    from (
        select
            author,
            work_id
        from split_rows
        where track = 'work_held_out'
        group by author, work_id
        having count(distinct split) > 1
    ) as straddling
),

held_out_rows as (
    select
        r.*,
        c.held_out_project,
        x.projects
    from split_rows as r
    inner join eligible as x on r.row_id = x.row_id
    left join choices as c on r.author = c.author
    where r.track = 'source_held_out'
),

held_out_train_has_held_out_project as (
    select count(*) as failing_rows
    from held_out_rows
    where split = 'train' and list_contains(projects, held_out_project)
),

held_out_eval_not_from_held_out_project as (
    select count(*) as failing_rows
    from held_out_rows
    where split <> 'train' and project is distinct from held_out_project
),

chunk_members as (
    select
        c.track,
        c.config,
        c.split,
        m.row_id
    from chunks as c
    cross join unnest(c.constituent_ids) as m (row_id)
),

expected_members as (
    select
        r.track,
        k.config,
        r.split,
        r.row_id
    from split_rows as r
    inner join chunked_configs as k on r.track = k.track
),

unmatched_members as (
    select count(*) as n
    from expected_members as e
    full outer join chunk_members as m
        on e.config = m.config and e.split = m.split and e.row_id = m.row_id
    where e.row_id is null or m.row_id is null
),

repeated_members as (
    select count(*) as n
    from (
        select
            config,
            row_id
        from chunk_members
        group by config, row_id
        having count(*) > 1
    ) as repeated
),

chunk_coverage as (
    select u.n + r.n as failing_rows
    from unmatched_members as u
    cross join repeated_members as r
),

chunk_size as (
    select count(*) as failing_rows
    from chunks
    where chunk_size <> chunk_target_size or len(constituent_ids) <> chunk_size
),

chunk_mixed_flag as (
    select count(*) as failing_rows
    from chunks
    where chunk_is_mixed_work <> has_tail_rows
),

final as (
    select
        'author_missing_split' as check_name,
        failing_rows
    from author_missing_split
    union all
    select
        'eval_shares_dedup_key_with_train' as check_name,
        failing_rows
    from eval_shares_dedup_key_with_train
    union all
    select
        'held_out_train_has_held_out_project' as check_name,
        failing_rows
    from held_out_train_has_held_out_project
    union all
    select
        'held_out_eval_not_from_held_out_project' as check_name,
        failing_rows
    from held_out_eval_not_from_held_out_project
    union all
    select
        'work_in_two_splits' as check_name,
        failing_rows
    from work_in_two_splits
    union all
    select
        'chunk_coverage' as check_name,
        failing_rows
    from chunk_coverage
    union all
    select
        'chunk_size' as check_name,
        failing_rows
    from chunk_size
    union all
    select
        'chunk_mixed_flag' as check_name,
        failing_rows
    from chunk_mixed_flag
)

select * from final
