-- Split assignment of every eligible row on the three tracks (SPEC §8, seed 000 "Splits",
-- "Source-held-out track"), before and after the 50-row bottleneck. Grain: one row per
-- (track, row_id); every eligible row appears once on 'main', once on 'source_held_out' and once
-- on 'work_held_out'.
--
-- Hashes (macro stable_hash): split_hash = sha256('776' || row_id), bottleneck_hash =
-- sha256('776bottleneck:' || row_id), both compared as lowercase hex strings, ties by row_id.
--
-- main: per (author, work) group of n rows ranked r = 0..n-1 by split_hash,
--   v = (n + 5) // 10 when n >= 10 (10% rounded half up), v = 1 when 3 <= n <= 9, v = 0 when n < 3;
--   r < v → validation, v <= r < 2v → test, else train.
-- source_held_out: an author whose eligible rows have more than one chosen-parse `project` holds
--   out the second-largest project by rows (ties: source priority, sql/seeds/projects.csv).
--   Its m rows, ranked 1..m by split_hash, go to validation for rank <= m // 2, test otherwise; the
--   other projects' rows are train unless the held-out project is in their provenance (`projects`),
--   in which case they are excluded ('held_out_project_in_provenance').
-- work_held_out: the split of the row's work (int_work_held_out_choice: whole works to validation
--   and test, closest to 10 % each, from seed 776); authors with fewer than three works are
--   excluded with that model's reason ('single_work_author', 'fewer_than_three_works').
-- Every track, per author: retained only if train, validation and test each have >= 50 candidate
--   rows ('author_below_threshold' otherwise); then within each (author, split) of c rows, ranked
--   1..c by bottleneck_hash, ranks > (c // 50) * 50 are excluded ('bottleneck_remainder').
--
-- Passage overlap (SPEC §7.1; int_overlap_edges, int_overlap_groups). Every row is
-- assigned twice: `baseline_split` by the rules above alone, `split` by this build's rules:
-- * source_held_out and work_held_out (each track on its own): with var('overlap_conflict_rule')
--   on, both rows of an author-conflict pair are excluded ('overlap_author_conflict'; SPEC §7's
--   conflict rule); with var('overlap_drop_train_twins') on, a would-be training row overlapping a validation or test
--   candidate of its author is excluded ('overlaps_evaluation_row'). Both before the bottleneck.
-- * main, var('split_profile') = 'seed000' (default): seed 000's split unchanged (the conflict rule
--   is not applied there: it would move published rows); 'grouped': each overlap group (a row
--   outside any pair is its own group) goes to one split as a unit: it is placed in the (author,
--   work) of its member with the smallest split_hash, units ranked by that hash, and a unit goes to
--   validation while the rows of the units before it number fewer than the holdout v of its
--   (author, work) (rows of the units placed there), to test while fewer than 2v, else to train (a
--   stratum of single rows gets exactly the seed's split); the conflict rule applies as above.
with

eligible as (select * from {{ ref('int_eligible_sentences') }}),

author_projects as (select * from {{ ref('int_author_projects') }}),

overlap_edges as (select * from {{ ref('int_overlap_edges') }}),

overlap_groups as (select * from {{ ref('int_overlap_groups') }}),

work_choice as (select * from {{ ref('int_work_held_out_choice') }}),

conflict_rows as (
    -- rows in an author-conflict pair (omitted by the conflict rule when it is on)
    select distinct row_id
    from overlap_edges
    where is_author_conflict
),

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
        {{ citation_key('e.passage') }} as citation_key,
        coalesce(g.group_id, e.row_id) as unit_id,
        {{ var('overlap_conflict_rule') }} and c.row_id is not null as is_overlap_conflict
    from eligible as e
    left join overlap_groups as g on e.row_id = g.row_id
    left join conflict_rows as c on e.row_id = c.row_id
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

unit_anchors as (
    -- each overlap unit is placed in the (author, work) of its member with the smallest split_hash
    select
        unit_id,
        arg_min(author, (split_hash, row_id)) as author,
        arg_min(work, (split_hash, row_id)) as work,
        min(split_hash) as unit_hash,
        count(*) as unit_rows
    from base
    group by unit_id
),

unit_ranked as (
    select
        *,
        coalesce(sum(unit_rows) over (
            partition by author, work order by unit_hash, unit_id rows between unbounded preceding and 1 preceding
        ), 0) as rows_before,
        sum(unit_rows) over (partition by author, work) as stratum_rows
    from unit_anchors
),

unit_splits as (
    select
        unit_id,
        case
            when rows_before < {{ group_holdout('stratum_rows') }} then 'validation'
            when rows_before < 2 * ({{ group_holdout('stratum_rows') }}) then 'test'
            else 'train'
        end as unit_split
    from unit_ranked
),

main_build_candidates as (
    -- split profile 'grouped': the unit's split, and the conflict rule; 'seed000': seed 000's split
    select
        m.* replace (
            case when '{{ var("split_profile") }}' = 'grouped' then u.unit_split else m.candidate_split end
                as candidate_split,
            case
                when '{{ var("split_profile") }}' = 'grouped' and m.is_overlap_conflict then 'overlap_author_conflict'
            end as pre_reason
        )
    from main_candidates as m
    inner join unit_splits as u on m.unit_id = u.unit_id
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

held_out_conflicts as (
    select
        * replace (
            coalesce(pre_reason, case when is_overlap_conflict then 'overlap_author_conflict' end) as pre_reason
        )
    from held_out_candidates
),

-- work-held-out track ----------------------------------------------------------------------------

work_held_out_candidates as (
    select
        t.*,
        'work_held_out' as track,
        cast(null as varchar) as held_out_project,
        cast(null as varchar) as held_out_source,
        w.work_split as candidate_split,
        w.pre_reason
    from textual as t
    inner join work_choice as w on t.author = w.author and t.work_id = w.work_id
),

work_held_out_conflicts as (
    select
        * replace (
            coalesce(pre_reason, case when is_overlap_conflict then 'overlap_author_conflict' end) as pre_reason
        )
    from work_held_out_candidates
),

-- overlap-clean held-out tracks ------------------------------------------------------------------

held_out_tracks as (
    select * from held_out_conflicts
    union all by name
    select * from work_held_out_conflicts
),

train_twins as (
    -- would-be training rows overlapping a validation or test candidate of their author
    select distinct
        t.track,
        t.row_id
    from held_out_tracks as t
    inner join overlap_edges as o on t.row_id = o.row_id
    inner join held_out_tracks as e on t.track = e.track and o.twin_row_id = e.row_id
    where
        t.candidate_split = 'train' and t.pre_reason is null
        and e.candidate_split in ('validation', 'test') and e.pre_reason is null
        and t.author = e.author
),

held_out_build_candidates as (
    select
        h.* replace (
            coalesce(
                h.pre_reason,
                case when {{ var('overlap_drop_train_twins') }} and w.row_id is not null then 'overlaps_evaluation_row' end
            ) as pre_reason
        )
    from held_out_tracks as h
    left join train_twins as w on h.track = w.track and h.row_id = w.row_id
),

-- bottleneck (every track, both variants) ----------------------------------------------------------

candidates as (
    select
        *,
        'baseline' as variant
    from main_candidates
    union all by name
    select
        *,
        'baseline' as variant
    from held_out_candidates
    union all by name
    select
        *,
        'baseline' as variant
    from work_held_out_candidates
    union all by name
    select
        *,
        'build' as variant
    from main_build_candidates
    union all by name
    select
        *,
        'build' as variant
    from held_out_build_candidates
),

author_counts as (
    select
        variant,
        track,
        author,
        count(*) filter (where candidate_split = 'train') as train_rows,
        count(*) filter (where candidate_split = 'validation') as validation_rows,
        count(*) filter (where candidate_split = 'test') as test_rows
    from candidates
    where pre_reason is null
    group by variant, track, author
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
                    partition by c.variant, c.track, c.author, c.candidate_split, c.pre_reason is null
                    order by c.bottleneck_hash, c.row_id
                )
        end as split_rank,
        count(*) over (partition by c.variant, c.track, c.author, c.candidate_split, c.pre_reason is null)
            as split_rows
    from candidates as c
    left join author_counts as a on c.variant = a.variant and c.track = a.track and c.author = a.author
),

decided as (
    select
        *,
        case
            when pre_reason is not null then pre_reason
            when not author_retained then 'author_below_threshold'
            when split_rank > (split_rows // {{ split_block() }}) * {{ split_block() }} then 'bottleneck_remainder'
        end as excluded_reason
    from bottlenecked
),

baseline as (
    select
        track,
        row_id,
        case when excluded_reason is null then candidate_split end as baseline_split
    from decided
    where variant = 'baseline'
),

final as (
    select
        d.track,
        d.row_id,
        d.dedup_key,
        d.author,
        d.work,
        d.work_id,
        d.genre,
        d.project,
        d.treebank_source,
        d.projects,
        d.passage,
        d.file_name,
        d.sentence_pos,
        d.citation_key,
        d.text_order,
        d.split_hash,
        d.bottleneck_hash,
        d.held_out_project,
        d.held_out_source,
        d.candidate_split,
        d.excluded_reason,
        d.excluded_reason is null as is_published,
        case when is_published then d.candidate_split end as split,
        d.unit_id as overlap_unit_id,
        b.baseline_split
    from decided as d
    inner join baseline as b on d.track = b.track and d.row_id = b.row_id
    where d.variant = 'build'
)

select * from final
