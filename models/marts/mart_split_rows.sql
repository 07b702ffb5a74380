-- Published atomic rows of both tracks (SPEC §8): the rows of sentence_1 (track 'main') and
-- source_held_out_1 (track 'source_held_out'), which _5, _10 and _50 regroup. Grain: one row per
-- (track, row_id). How each row got its split is documented in mart_split_assignments.
with

assignments as (select * from {{ ref('mart_split_assignments') }}),

final as (
    select
        track,
        row_id,
        author,
        work,
        work_id,
        genre,
        split,
        held_out_source,
        project,
        dedup_key,
        citation_key,
        text_order
    from assignments
    where is_published
)

select * from final
