-- The words of every unit as the passage-overlap measure sees them (SPEC §7.1): the
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

unit_texts as materialized (
    select
        u.sentence_uid,
        u.project,
        u.dedup_key,
        {{ overlap_words('u.text') }} as overlap_text  -- noqa: PRS, LT02
    from units as u
),

-- the edition variants, words and n-grams once per distinct text (73 k of 88 k units): a
-- regexp_replace whose pattern is read from a table compiles it on every call, so the rules are
-- written into the SQL (var('edition_variants'), read from the seed's CSV) and checked against the
-- seed table
normalized as (
    select
        t.overlap_text,
        case
            when r.variant_rules = {{ edition_variant_rules() }}  -- noqa: PRS, LT02
                then {{ apply_edition_variants('t.overlap_text') }}  -- noqa: PRS, LT02
            else error('int_overlap_texts: the seed edition_variants differs from var(''edition_variants'')')
        end as edition_text
    from (select distinct overlap_text from unit_texts) as t
    cross join rules as r  -- noqa: AL05
),

-- noqa: disable=RF03
-- (lambda parameters read as qualified references)
worded as (
    select
        overlap_text,
        replace(edition_text, ' ', '') as edition_key,
        list_filter(string_split(edition_text, ' '), lambda w: w <> '') as words
    from normalized
),

grams as (
    -- the n-grams zip the words with their own shifts (words, words[2:], …, truncated to the
    -- shortest): linear in the sentence's length. A lambda over positions that slices `words`
    -- would copy the whole list once per position (quadratic in the sentence's length)
    select
        overlap_text,
        edition_key,
        words,
        len(words) as n_words,
        list_distinct(list_transform(
            list_zip(
                {% for k in range(var('overlap_ngram_words')) %}words[{{ k + 1 }}:]{{ ", " if not loop.last }}{% endfor %}, true
            ),
            lambda g: concat_ws(' ', {% for k in range(var('overlap_ngram_words')) %}g[{{ k + 1 }}]{{ ", " if not loop.last }}{% endfor %})
        )) as ngrams
    from worded
),

-- noqa: enable=RF03
final as (
    select
        u.sentence_uid,
        u.project,
        u.dedup_key,
        g.edition_key,
        g.words,
        g.n_words,
        g.ngrams
    from unit_texts as u
    inner join grams as g on u.overlap_text = g.overlap_text
)

select * from final
