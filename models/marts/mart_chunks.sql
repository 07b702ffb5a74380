-- Chunk rows of the _5, _10 and _50 configurations of every track (SPEC §8, seed 000
-- "Configurations"): exactly the published atomic rows of each (track, author, split), regrouped.
-- Grain: one row per chunk (chunk_id).
--
-- For chunk size k, per (track, author, split): works are taken in order of (work, work_id); within
-- a work the rows follow text_order (parsed citation, then upstream file and position; see
-- mart_split_assignments). A work with n rows contributes floor(n / k) complete single-work chunks
-- (its first floor(n / k) * k rows); its remaining n mod k rows are its tail. All complete chunks
-- come first (work by work), then the tails of all works are concatenated in the same work order and
-- cut into chunks of k; each tail is shorter than k, so every tail chunk spans at least two works
-- and is flagged chunk_is_mixed_work. Because every (author, split) has a multiple of 50 rows and
-- k divides 50, the tails always fill whole chunks.
-- chunk_id = <config>-<split>-<author slug>-<chunk_seq, 4 digits>, chunk_seq 1-based in that order.
with

split_rows as (select * from {{ ref('mart_split_rows') }}),

configs as (select * from {{ ref('benchmark_configs') }}),

sizes as (
    -- the chunked configurations' sizes (seed benchmark_configs; _1 rows are mart_split_rows)
    select distinct chunk_target_size from configs
    where chunk_target_size > 1
),

positioned as (
    select
        r.track,
        r.author,
        r.split,
        r.work,
        r.work_id,
        r.row_id,
        r.text_order,
        s.chunk_target_size,
        row_number() over (
            partition by s.chunk_target_size, r.track, r.author, r.split, r.work, r.work_id
            order by r.text_order
        ) - 1 as work_pos,
        count(*) over (
            partition by s.chunk_target_size, r.track, r.author, r.split, r.work, r.work_id
        ) as work_rows
    from split_rows as r
    cross join sizes as s
),

tails as (
    -- a work's last n mod k rows are its residual tail
    select
        *,
        work_pos >= (work_rows // chunk_target_size) * chunk_target_size as is_tail
    from positioned
),

sequenced as (
    select
        *,
        row_number() over (
            partition by chunk_target_size, track, author, split
            order by is_tail, work, work_id, work_pos
        ) - 1 as seq
    from tails
),

members as (
    select
        *,
        seq // chunk_target_size + 1 as chunk_seq,
        -- a work's first row in its chunk: chunk_works lists each work once, in this order
        row_number() over (
            partition by chunk_target_size, track, author, split, seq // chunk_target_size, work, work_id
            order by seq
        ) = 1 as is_first_of_work
    from sequenced
),

chunks as (
    select
        chunk_target_size,
        track,
        author,
        split,
        chunk_seq,
        list(row_id order by seq) as constituent_ids,
        count(*) as chunk_size,
        bool_or(is_tail) as has_tail_rows,
        list(work order by seq) filter (where is_first_of_work) as chunk_works,
        list(work_id order by seq) filter (where is_first_of_work) as chunk_work_ids
    from members
    group by all
),

final as (
    select
        c.track,
        k.config,
        c.split,
        k.config || '-' || c.split || '-'
        || {{ author_slug('c.author') }} || '-' || lpad(c.chunk_seq::varchar, 4, '0') as chunk_id,
        c.chunk_seq,
        c.author,
        c.constituent_ids,
        c.chunk_size::integer as chunk_size,
        c.chunk_target_size,
        c.chunk_work_ids,
        c.chunk_works,
        len(c.chunk_works) > 1 as chunk_is_mixed_work,
        c.has_tail_rows
    from chunks as c
    inner join configs as k on c.track = k.track and c.chunk_target_size = k.chunk_target_size
)

select * from final
