-- Eligible rows not published on a track, with the reason (SPEC §8; dataset_variants.json
-- exclusions). Grain: one row per (track, row_id).
-- excluded_reason: single_project_author (held-out track only: the author has one project),
-- held_out_project_in_provenance (held-out track: a would-be training row that the held-out
-- project also annotated), author_below_threshold (fewer than 50 candidate rows in some split),
-- bottleneck_remainder (one of the n mod 50 rows of an author and split dropped by stable hash).
with

assignments as (select * from {{ ref('mart_split_assignments') }}),

final as (
    select
        track,
        row_id,
        author,
        work,
        work_id,
        project,
        held_out_source,
        candidate_split,
        excluded_reason
    from assignments
    where not is_published
)

select * from final
