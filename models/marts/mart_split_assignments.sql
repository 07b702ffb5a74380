-- Split assignment of every eligible row on both tracks (SPEC §8, seed 000 "Splits",
-- "Source-held-out track"), before and after the 50-row bottleneck. Grain: one row per
-- (track, row_id); every eligible row appears once on 'main' and once on 'source_held_out'.
--
-- Hashes (macro stable_hash): split_hash = sha256('776' || row_id), bottleneck_hash =
-- sha256('776bottleneck:' || row_id), both compared as lowercase hex strings, ties by row_id.
--
-- main: per (author, work) group of n rows ranked r = 0..n-1 by split_hash,
--   v = (n + 5) // 10 when n >= 10 (10% rounded half up), v = 1 when 3 <= n <= 9, v = 0 when n < 3;
--   r < v → validation, v <= r < 2v → test, else train.
-- source_held_out: an author whose eligible rows have more than one chosen-parse `project` holds
--   out the second-largest project by rows (ties: source priority, sql/seeds/source_priority.csv).
--   Its m rows, ranked 1..m by split_hash, go to validation for rank <= m // 2, test otherwise; the
--   other projects' rows are train unless the held-out project is in their provenance (`projects`),
--   in which case they are excluded ('held_out_project_in_provenance').
-- Both tracks, per author: retained only if train, validation and test each have >= 50 candidate
--   rows ('author_below_threshold' otherwise); then within each (author, split) of c rows, ranked
--   1..c by bottleneck_hash, ranks > (c // 50) * 50 are excluded ('bottleneck_remainder').
with

eligible as (select * from {{ ref('int_eligible_sentences') }}),

author_projects as (select * from {{ ref('int_author_projects') }}),

base as (
    select
        e.row_id,
        e.dedup_key,
        e.author,
        e.work,
        e.work_id,
        e.genre,
        e.project,
        e.treebank_source,
        e.projects,
        e.passage,
        e.file_name,
        e.sentence_pos,
        {{ stable_hash('e.row_id') }} as split_hash,
        {{ stable_hash('e.row_id', 'bottleneck:') }} as bottleneck_hash,
        {{ citation_key('e.passage') }} as citation_key
    from eligible as e
),

textual as (
    -- best available textual order within each (author, work): parsed citation, then upstream
    -- file and position (rows without a usable citation follow the cited ones)
    select
        *,
        row_number() over (
            partition by author, work
            order by citation_key asc nulls last, file_name asc, sentence_pos asc, row_id asc
        ) as text_order
    from base
),

-- main track -------------------------------------------------------------------------------------

main_ranked as (
    select
        *,
        row_number() over (partition by author, work order by split_hash, row_id) - 1 as group_rank,
        count(*) over (partition by author, work) as group_rows
    from textual
),

main_holdout as (
    -- rows per split for validation and for test in this (author, work) group
    select
        *,
        {{ group_holdout('group_rows') }} as group_holdout
    from main_ranked
),

main_candidates as (
    select
        * exclude (group_rank, group_rows, group_holdout),
        'main' as track,
        cast(null as varchar) as held_out_project,
        cast(null as varchar) as held_out_source,
        case
            when group_rank < group_holdout then 'validation'
            when group_rank < 2 * group_holdout then 'test'
            else 'train'
        end as candidate_split,
        cast(null as varchar) as pre_reason
    from main_holdout
),

-- source-held-out track --------------------------------------------------------------------------

held_out as (
    select
        author,
        project as held_out_project,
        treebank_source as held_out_source
    from author_projects
    where project_rank = 2
),

held_out_ranked as (
    select
        t.*,
        h.held_out_project,
        h.held_out_source,
        case
            when t.project = h.held_out_project
                then row_number() over (
                    partition by t.author, t.project = h.held_out_project order by t.split_hash, t.row_id
                )
        end as held_out_rank,
        count(*) filter (where t.project = h.held_out_project) over (partition by t.author) as held_out_rows
    from textual as t
    left join held_out as h on t.author = h.author
),

held_out_candidates as (
    select
        * exclude (held_out_rank, held_out_rows),
        'source_held_out' as track,
        case
            when held_out_project is null then null
            when project = held_out_project and held_out_rank <= held_out_rows // 2 then 'validation'
            when project = held_out_project then 'test'
            else 'train'
        end as candidate_split,
        case
            when held_out_project is null then 'single_project_author'
            when project <> held_out_project and list_contains(projects, held_out_project)
                then 'held_out_project_in_provenance'
        end as pre_reason
    from held_out_ranked
),

-- bottleneck (both tracks) -----------------------------------------------------------------------

candidates as (
    select * from main_candidates
    union all by name
    select * from held_out_candidates
),

author_counts as (
    select
        track,
        author,
        count(*) filter (where candidate_split = 'train') as train_rows,
        count(*) filter (where candidate_split = 'validation') as validation_rows,
        count(*) filter (where candidate_split = 'test') as test_rows
    from candidates
    where pre_reason is null
    group by track, author
),

bottlenecked as (
    select
        c.*,
        a.train_rows >= {{ split_block() }}
        and a.validation_rows >= {{ split_block() }}
        and a.test_rows >= {{ split_block() }} as author_retained,
        case
            when c.pre_reason is null
                then row_number() over (
                    partition by c.track, c.author, c.candidate_split, c.pre_reason is null
                    order by c.bottleneck_hash, c.row_id
                )
        end as split_rank,
        count(*) over (partition by c.track, c.author, c.candidate_split, c.pre_reason is null) as split_rows
    from candidates as c
    left join author_counts as a on c.track = a.track and c.author = a.author
),

final as (
    select
        track,
        row_id,
        dedup_key,
        author,
        work,
        work_id,
        genre,
        project,
        treebank_source,
        projects,
        passage,
        file_name,
        sentence_pos,
        citation_key,
        text_order,
        split_hash,
        bottleneck_hash,
        held_out_project,
        held_out_source,
        candidate_split,
        case
            when pre_reason is not null then pre_reason
            when not author_retained then 'author_below_threshold'
            when split_rank > (split_rows // {{ split_block() }}) * {{ split_block() }} then 'bottleneck_remainder'
        end as excluded_reason,
        excluded_reason is null as is_published,
        case when is_published then candidate_split end as split
    from bottlenecked
)

select * from final
