-- The overlapping pairs of int_overlap_pairs in both directions (SPEC §7.1): every
-- eligible row in a pair with each row it overlaps, the pair's class, author conflict and whether
-- the character measure finds it. What the split assignment, the overlap groups and the leak
-- counts join on. Grain: one row per (row_id, twin_row_id).
with

pairs as (select * from {{ ref('int_overlap_pairs') }}),

final as (
    select
        row_id_a as row_id,
        row_id_b as twin_row_id,
        overlap_class,
        is_author_conflict,
        is_char_twin
    from pairs
    union all
    select
        row_id_b as row_id,
        row_id_a as twin_row_id,
        overlap_class,
        is_author_conflict,
        is_char_twin
    from pairs
)

select * from final
