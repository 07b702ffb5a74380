-- Published atomic rows of every track (SPEC §8): the rows of sentence_1 (track 'main'),
-- source_held_out_1 (track 'source_held_out') and work_held_out_1 (track 'work_held_out'), which
-- _5, _10 and _50 regroup. Grain: one row per (track, row_id). How each row got its split is
-- documented in mart_split_assignments. held_out_works (work_held_out only): the author's works in
-- validation and test, LIST<STRUCT(split, work_id, work)> ordered validation first, then by work_id.
with

assignments as (select * from {{ ref('mart_split_assignments') }}),

work_choice as (select * from {{ ref('int_work_held_out_choice') }}),

author_held_out_works as (
    select
        'work_held_out' as track,
        author,
        list(
            struct_pack(split := work_split, work_id := work_id, work := work)
            order by work_split = 'test', work_id
        ) as held_out_works
    from work_choice
    where work_split in ('validation', 'test')
    group by author
),

final as (
    select
        a.track,
        a.row_id,
        a.author,
        a.work,
        a.work_id,
        a.genre,
        a.split,
        a.held_out_source,
        w.held_out_works,
        a.project,
        a.dedup_key,
        a.citation_key,
        a.text_order
    from assignments as a
    left join author_held_out_works as w on a.track = w.track and a.author = w.author
    where a.is_published
)

select * from final
