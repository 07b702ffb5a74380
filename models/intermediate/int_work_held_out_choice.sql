-- The work-held-out track's choice of works (SPEC §8): for every author, which whole
-- works go to validation, which to test and which stay in train. Grain: one row per (author,
-- work_id) of the eligible rows.
--
-- A work is one `work_id` as int_eligible_sentences (and so mart_split_rows) knows it: projects
-- that cut one text differently (Iliad books, speeches of one corpus) meet in one work_id, and a
-- work is never split between splits.
--
-- Rule (seed 776, macro stable_hash): an author's k works are ranked 0..k-1 by
-- work_hash = sha256('776work:' || work_id) (ties by work_id); a subset of works is the bitmask
-- whose bit r is the work of rank r, its rows the sum of those works' eligible rows; the target is
-- t = n / 10 with n the author's eligible rows.
-- * validation: among the non-empty subsets leaving at least two works out, the one whose rows are
--   closest to t (smallest |rows - t|; ties: fewer works, then the smaller bitmask);
-- * test: among the non-empty subsets of the works left, leaving at least one work for train,
--   the one closest to t (same ties);
-- * train: the rest.
-- Authors with one work ('single_work_author') or two ('fewer_than_three_works': train,
-- validation and test each need a whole work) get no split. The exhaustive search is over at most
-- 2^k subsets per author (k = 13 for the largest real author).
with

eligible as (select * from {{ ref('int_eligible_sentences') }}),

works as (
    select
        author,
        work_id,
        min(work) as work,
        count(*) as work_rows,
        {{ stable_hash('work_id', 'work:') }} as work_hash
    from eligible
    group by author, work_id
),

ranked as (
    select
        *,
        row_number() over (partition by author order by work_hash, work_id) - 1 as work_rank,
        count(*) over (partition by author) as n_works,
        sum(work_rows) over (partition by author) as author_rows
    from works
),

authors as (
    select
        author,
        any_value(n_works) as n_works,
        any_value(author_rows) as author_rows,
        any_value(author_rows) / 10.0 as target_rows
    from ranked
    group by author
),

masks as (
    -- every subset of every author with three works or more except the empty and the full one
    select
        a.author,
        a.n_works,
        a.target_rows,
        m.mask
    from authors as a
    cross join lateral (select range as mask from range(1, (1 << a.n_works) - 1)) as m
    where a.n_works >= 3
),

subsets as (
    select
        m.author,
        m.mask,
        any_value(m.n_works) as n_works,
        any_value(m.target_rows) as target_rows,
        sum(r.work_rows) as subset_rows,
        count(*) as subset_works
    from masks as m
    inner join ranked as r on m.author = r.author and ((m.mask >> r.work_rank) & 1) = 1
    group by m.author, m.mask
),

validation_pick as (
    select
        author,
        arg_min(mask, (abs(subset_rows - target_rows), subset_works, mask)) as validation_mask
    from subsets
    where subset_works <= n_works - 2
    group by author
),

test_pick as (
    select
        s.author,
        any_value(v.validation_mask) as validation_mask,
        arg_min(s.mask, (abs(s.subset_rows - s.target_rows), s.subset_works, s.mask)) as test_mask
    from subsets as s
    inner join validation_pick as v on s.author = v.author
    where
        (s.mask & v.validation_mask) = 0
        and s.subset_works + bit_count(v.validation_mask) <= s.n_works - 1
    group by s.author
),

final as (
    select
        r.author,
        r.work_id,
        r.work,
        r.work_rows,
        r.work_hash,
        r.work_rank::integer as work_rank,
        r.n_works::integer as n_works,
        r.author_rows,
        a.target_rows,
        case
            when p.author is null then null
            when ((p.validation_mask >> r.work_rank) & 1) = 1 then 'validation'
            when ((p.test_mask >> r.work_rank) & 1) = 1 then 'test'
            else 'train'
        end as work_split,
        case
            when r.n_works = 1 then 'single_work_author'
            when r.n_works = 2 then 'fewer_than_three_works'
        end as pre_reason
    from ranked as r
    inner join authors as a on r.author = a.author
    left join test_pick as p on r.author = p.author
)

select * from final
