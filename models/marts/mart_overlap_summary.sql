-- The passage-overlap settings of this build and its headline counts (SPEC §7.1; the
-- build report's passage_overlap section): the build variables of both measures, the rules and
-- the split profile; pairs (by measure and class) and groups; rows the rules exclude per track;
-- and, with the default profile, the published main-track rows the conflict rule would omit there
-- (it is not applied to the main track so that seed 000's split stays reproducible). Grain: one row.
with

pairs as (select * from {{ ref('mart_overlap_pairs') }}),

groups as (select * from {{ ref('mart_overlap_groups') }}),

assignments as (select * from {{ ref('mart_split_assignments') }}),

conflict_rows as (
    select row_id_a as row_id from pairs
    where is_author_conflict
    union
    select row_id_b as row_id from pairs
    where is_author_conflict
),

pair_counts as (
    select
        count(*) as pairs,
        count(*) filter (where is_word_twin) as word_pairs,
        count(*) filter (where is_char_twin) as char_pairs,
        count(*) filter (where is_char_twin and not is_word_twin) as char_only_pairs,
        count(*) filter (where overlap_class = 'edition') as edition_pairs,
        count(*) filter (where overlap_class = 'segmentation') as segmentation_pairs,
        count(*) filter (where overlap_class = 'formula') as formula_pairs,
        count(*) filter (where overlap_class = 'quotation') as quotation_pairs,
        count(*) filter (where is_author_conflict) as author_conflict_pairs,
        count(*) filter (where straddled_main_baseline) as straddling_main_pairs_before,
        count(*) filter (where straddles_main) as straddling_main_pairs_after,
        count(*) filter (where straddled_source_held_out_baseline) as straddling_held_out_pairs_before,
        count(*) filter (where straddles_source_held_out) as straddling_held_out_pairs_after,
        count(*) filter (where straddled_work_held_out_baseline) as straddling_work_held_out_pairs_before,
        count(*) filter (where straddles_work_held_out) as straddling_work_held_out_pairs_after
    from pairs
),

group_counts as (
    select
        count(*) as groups,
        max(group_rows) as largest_group_rows,
        count(*) filter (where straddles_main) as straddling_main_groups
    from groups
),

exclusions as (
    select
        count(*) filter (where track = 'main' and excluded_reason = 'overlap_author_conflict')
            as main_conflict_rows_omitted,
        count(*) filter (where track = 'source_held_out' and excluded_reason = 'overlap_author_conflict')
            as held_out_conflict_rows_omitted,
        count(*) filter (where track = 'source_held_out' and excluded_reason = 'overlaps_evaluation_row')
            as held_out_train_twins_dropped,
        count(*) filter (where track = 'work_held_out' and excluded_reason = 'overlap_author_conflict')
            as work_held_out_conflict_rows_omitted,
        count(*) filter (where track = 'work_held_out' and excluded_reason = 'overlaps_evaluation_row')
            as work_held_out_train_twins_dropped
    from assignments
),

main_conflicts as (
    select count(*) as main_published_conflict_rows
    from assignments as a
    semi join conflict_rows as c on a.row_id = c.row_id
    where a.track = 'main' and a.is_published
),

final as (
    select
        '{{ var("split_profile") }}' as split_profile,
        {{ var('overlap_ngram_words') }} as ngram_words,
        {{ var('overlap_min_ngrams') }} as min_ngrams,
        cast({{ var('overlap_min_containment') }} as double) as min_containment,
        {{ var('overlap_char_ngram') }} as char_ngram,
        {{ var('overlap_char_min_ngrams') }} as char_min_ngrams,
        cast({{ var('overlap_char_min_containment') }} as double) as char_min_containment,
        {{ var('overlap_conflict_rule') }} as conflict_rule,
        {{ var('overlap_drop_train_twins') }} as drop_train_twins,
        p.*,
        g.*,
        e.*,
        m.main_published_conflict_rows
    from pair_counts as p
    cross join group_counts as g
    cross join exclusions as e
    cross join main_conflicts as m
)

select * from final
