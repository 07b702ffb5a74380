-- Overlapping pairs of records (SPEC §7.1): two units with different dedup keys whose
-- texts overlap by the measure, over every record of int_overlap_texts (the analyst's view;
-- int_overlap_pairs keeps the pairs of eligible rows). A pair overlaps when
--   * both have at least var('overlap_min_ngrams') distinct word n-grams and the smaller set is
--     at least var('overlap_min_containment') inside the other: shared / least(n_a, n_b), or
--   * their edition keys are equal (the texts differ only by listed edition variants; any length;
--     containment 1).
-- Grain: one row per (sentence_uid_a, sentence_uid_b), sentence_uid_a < sentence_uid_b.
with

texts as (select * from {{ ref('int_overlap_texts') }}),

measured_texts as (
    select
        sentence_uid,
        dedup_key,
        ngrams,
        len(ngrams) as n_ngrams
    from texts
    where len(ngrams) >= {{ var('overlap_min_ngrams') }}
),

postings as (
    select
        sentence_uid,
        unnest(ngrams) as ngram
    from measured_texts
),

shared as (
    -- shared n-grams of every pair with at least one in common (the inverted index joined to itself)
    select
        a.sentence_uid as sentence_uid_a,
        b.sentence_uid as sentence_uid_b,
        count(*) as shared_ngrams
    from postings as a
    inner join postings as b on a.ngram = b.ngram and a.sentence_uid < b.sentence_uid
    group by a.sentence_uid, b.sentence_uid
),

contained as (
    select
        s.sentence_uid_a,
        s.sentence_uid_b,
        s.shared_ngrams
    from shared as s
    inner join measured_texts as a on s.sentence_uid_a = a.sentence_uid
    inner join measured_texts as b on s.sentence_uid_b = b.sentence_uid
    where
        a.dedup_key <> b.dedup_key
        and s.shared_ngrams >= {{ var('overlap_min_containment') }} * least(a.n_ngrams, b.n_ngrams)
),

edition_twins as (
    select
        a.sentence_uid as sentence_uid_a,
        b.sentence_uid as sentence_uid_b
    from texts as a
    inner join texts as b
        on a.edition_key = b.edition_key and a.sentence_uid < b.sentence_uid and a.dedup_key <> b.dedup_key
    where a.edition_key <> ''
),

candidates as (
    select
        sentence_uid_a,
        sentence_uid_b
    from contained
    union
    select
        sentence_uid_a,
        sentence_uid_b
    from edition_twins
),

final as (
    select
        c.sentence_uid_a,
        c.sentence_uid_b,
        a.dedup_key as dedup_key_a,
        b.dedup_key as dedup_key_b,
        len(a.ngrams) as ngrams_a,
        len(b.ngrams) as ngrams_b,
        coalesce(m.shared_ngrams, len(list_intersect(a.ngrams, b.ngrams))) as shared_ngrams,
        len(list_intersect(list_distinct(a.words), list_distinct(b.words))) as shared_words,
        a.edition_key = b.edition_key as is_edition_variant,
        case
            when a.edition_key = b.edition_key then 1.0
            else round(shared_ngrams / least(len(a.ngrams), len(b.ngrams)), 4)
        end as containment
    from candidates as c
    inner join texts as a on c.sentence_uid_a = a.sentence_uid
    inner join texts as b on c.sentence_uid_b = b.sentence_uid
    left join contained as m on c.sentence_uid_a = m.sentence_uid_a and c.sentence_uid_b = m.sentence_uid_b
)

select * from final
