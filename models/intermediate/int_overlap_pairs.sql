-- Overlapping pairs of eligible rows (SPEC §7.1), by either measure: the record pairs
-- (int_record_overlap_pairs, word n-grams) whose two records are the chosen parses of two eligible
-- rows, and the character-level near-twins of int_overlap_char_pairs; a pair either finds is one
-- pair, with both measures' figures (NULL for a measure that did not find it), the pair's class
-- (macro overlap_class) and whether its authors conflict (an `edition` or `quotation` pair of two
-- author labels: SPEC §7's conflict rule omits both rows when var('overlap_conflict_rule') is on,
-- see mart_split_assignments). Grain: one row per (row_id_a, row_id_b), row_id_a < row_id_b.
with

record_pairs as (select * from {{ ref('int_record_overlap_pairs') }}),

char_pairs as (select * from {{ ref('int_overlap_char_pairs') }}),

eligible as (select * from {{ ref('int_eligible_sentences') }}),

word_pairs as (
    select
        case when a.row_id < b.row_id then a.row_id else b.row_id end as row_id_a,
        case when a.row_id < b.row_id then b.row_id else a.row_id end as row_id_b,
        p.containment,
        p.shared_ngrams,
        p.shared_words,
        p.is_edition_variant
    from record_pairs as p
    inner join eligible as a on p.sentence_uid_a = a.sentence_uid
    inner join eligible as b on p.sentence_uid_b = b.sentence_uid
),

sided as (
    select
        coalesce(w.row_id_a, c.row_id_a) as row_id_a,
        coalesce(w.row_id_b, c.row_id_b) as row_id_b,
        w.containment,
        w.shared_ngrams,
        w.shared_words,
        coalesce(w.is_edition_variant, false) as is_edition_variant,
        c.char_containment,
        c.shared_char_ngrams,
        w.row_id_a is not null as is_word_twin,
        c.row_id_a is not null as is_char_twin
    from word_pairs as w
    full outer join char_pairs as c on w.row_id_a = c.row_id_a and w.row_id_b = c.row_id_b
),

final as (
    select
        s.row_id_a,
        s.row_id_b,
        a.author as author_a,
        b.author as author_b,
        a.work as work_a,
        b.work as work_b,
        a.project as project_a,
        b.project as project_b,
        s.containment,
        s.shared_ngrams,
        s.shared_words,
        s.char_containment,
        s.shared_char_ngrams,
        s.is_word_twin,
        s.is_char_twin,
        {{ overlap_class('s.is_edition_variant', 'a.author', 'b.author', 'a.work', 'b.work', 'a.project', 'b.project') }}
            as overlap_class,
        overlap_class in ('edition', 'quotation') and a.author <> b.author as is_author_conflict
    from sided as s
    inner join eligible as a on s.row_id_a = a.row_id
    inner join eligible as b on s.row_id_b = b.row_id
)

select * from final
