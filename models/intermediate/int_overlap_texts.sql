-- The words of every unit as the passage-overlap measure sees them (SPEC §7.1, issue 29): the
-- published text with diacritics removed (macro overlap_words), then every edition variant of the
-- seed edition_variants applied in variant_order (so μεγάροισιν and μεγάροισι are one word), and
-- the word n-grams (n = var('overlap_ngram_words')) the containment measure counts.
-- `edition_key` is the same words without spaces: two keys that differ only by listed edition
-- variants have one edition_key. Grain: one row per sentence_uid of int_units (every record).
with

units as (select * from {{ ref('int_units') }}),

variants as (select * from {{ ref('edition_variants') }}),

rules as (
    select
        list(
            struct_pack(pattern := pattern, replacement := replacement) order by variant_order
        ) as variant_rules
    from variants
),

normalized as (
    select
        u.sentence_uid,
        u.project,
        u.dedup_key,
        {{ apply_edition_variants(overlap_words('u.text'), 'r.variant_rules') }} as edition_text  -- noqa: PRS, LT02
    from units as u
    cross join rules as r  -- noqa: AL05
),

-- noqa: disable=RF03
-- (lambda parameters read as qualified references)
worded as (
    select
        sentence_uid,
        project,
        dedup_key,
        replace(edition_text, ' ', '') as edition_key,
        list_filter(string_split(edition_text, ' '), lambda w: w <> '') as words
    from normalized
),

final as (
    select
        sentence_uid,
        project,
        dedup_key,
        edition_key,
        words,
        len(words) as n_words,
        list_distinct(list_transform(
            range(1, len(words) - {{ var('overlap_ngram_words') }} + 2),
            lambda i: array_to_string(words[i:i + {{ var('overlap_ngram_words') }} - 1], ' ')
        )) as ngrams
    from worded
)

-- noqa: enable=RF03
select * from final
