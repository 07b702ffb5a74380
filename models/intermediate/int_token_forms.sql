-- Published form of every word token (SPEC §5 orthography and §5.1 project-neutral strings), each
-- rule one step with a flag saying whether it changed the form:
--  1. split words: a surviving piece takes the surface of its word (int_split_words);
--  2. whitespace trimmed (seed 000: forms carry no spaces) — inner whitespace removed;
--  3. editorial marks (seed editorial_marks) removed;
--  4. in a form with a Greek letter, Latin look-alike letters become Greek (seed latin_lookalikes;
--     word-final `s`/`j` → ς);
--  4a. numerals: a Greek alphabetic numeral is published as its letters followed by U+2019, the
--     one spelling of its keraia (one form in every project: Gorman `ρ᾽`, AGDT `ῤ`, Harrington
--     `ΟἘ᾽`, Pedalion `ηʹ` → `ρ’`, `ρ’`, `οε’`, `η’`; the invariant allows no other sign, and the
--     projects that type the keraia as an apostrophe already publish it so). The letters keep no
--     breathing or accent. A form is a numeral when it is one to four letters with a keraia in any spelling:
--     the numeral sign U+0374 / U+02B9 / U+0384 (lower keraia U+0375 before), whatever the tag; or,
--     on a token the tag calls a numeral (POS `m`), a final psili (combining or spacing), an
--     apostrophe or an acute that the letter cannot carry as a breathing or accent of a word
--     (`δύ᾽`, an elided δύο, has its own accent and stays an elision);
--  5. apostrophes: a word-initial elision mark (seed elision_marks) becomes U+2019; after NFC, a
--     word-final letter carrying only a psili that cannot be a breathing (seed elision_psili_letters:
--     not on a word-initial vowel/diphthong) loses it and U+2019 follows; any word-final elision mark
--     becomes U+2019; spacing apostrophes elsewhere become U+2019;
--  6. any other character that is not a Greek letter, a combining mark or U+2019 (digits, `?`,
--     stray Latin) removed;
--  7. lowercase with lower_grc, NFC, grave → acute (greek_normalisation's grave_to_acute).
-- A token whose form keeps no letter is removed from the tree (`has_letter` false, int_tree_links).
-- Rules 2-7 run once per distinct source surface. Grain: one row per word token (sentence_uid, token_pos).
with

tokens as (
    select
        sentence_uid,
        token_pos,
        project,
        form
    from {{ ref('int_tokens') }}
    where is_syntactic_word
),

split_words as (select * from {{ ref('int_split_words') }}),

morphology as (
    select
        sentence_uid,
        token_pos,
        tag
    from {{ ref('int_token_morphology') }}
),

editorial_marks as ({{ seed_editorial_marks() }}),

lookalike_pairs as ({{ seed_lookalike_pairs() }}),

elision_marks as ({{ seed_elision_marks() }}),

psili_letters as (select * from {{ ref('elision_psili_letters') }}),

surfaces as (
    select
        t.sentence_uid,
        t.token_pos,
        t.form as source_form,
        coalesce(s.is_survivor is not null and not s.is_survivor, false) as is_absorbed_piece,
        coalesce(case when s.is_survivor then s.surface end, t.form) as surface,
        coalesce(starts_with(m.tag, 'm'), false) as is_numeral_tag
    from tokens as t
    left join split_words as s on t.sentence_uid = s.sentence_uid and t.token_pos = s.token_pos
    left join morphology as m on t.sentence_uid = m.sentence_uid and t.token_pos = m.token_pos
),

distinct_surfaces as (
    select distinct
        surface,
        is_numeral_tag
    from surfaces
),

numeral_surfaces as (
    -- 4a: a numeral with its keraia (see the header); only short surfaces are looked at
    select
        surface,
        is_numeral_tag,
        coalesce(
            length(surface) <= 8
            and (
                regexp_full_match(nfd(trim(surface)), '\x{0375}?\p{L}{1,4}[\x{0374}\x{02B9}\x{0384}]')
                or (
                    is_numeral_tag
                    and regexp_full_match(
                        nfd(trim(surface)), '\p{L}{1,4}(?:[\x{0313}\x{1FBD}\x{1FBF}\x{0027}\x{02BC}\x{2019}]+|\x{0301})'
                    )
                )
            ),
            false
        ) as is_numeral
    from distinct_surfaces
),

trimmed as (
    -- each distinct surface, with the seeds' lists (one row each) attached once for the steps below
    select
        d.surface,
        d.is_numeral_tag,
        d.is_numeral,
        regexp_replace(trim(d.surface), '\s+', '', 'g') as form_trimmed,
        e.marks as editorial_mark_list,
        p.pairs as lookalike_pair_list,
        x.marks as elision_marks
    from numeral_surfaces as d
    cross join editorial_marks as e  -- noqa: AL05
    cross join lookalike_pairs as p  -- noqa: AL05
    cross join elision_marks as x  -- noqa: AL05
),

edited as (
    select
        *,
        -- sqlfluff's duckdb dialect does not parse DuckDB's `lambda x: ...` (the macros' lambdas)
        {{ remove_editorial_marks('form_trimmed', 'editorial_mark_list') }} as form_edited  -- noqa: PRS, LT02
    from trimmed
),

greek_letters as (
    select
        *,
        {{ map_lookalikes('form_edited', 'lookalike_pair_list') }} as form_greek  -- noqa: PRS, LT02
    from edited
),

numerals as (
    -- 4a: a numeral is its letters (NFD, so a keraia written as a psili or acute goes too) and U+2019
    select
        *,
        case
            when is_numeral
                then nfc_normalize(regexp_replace(nfd(form_greek), '[^\p{L}]|[\x{0374}\x{02B9}\x{0375}]', '', 'g')) || chr(8217)
            else form_greek
        end as form_numeral
    from greek_letters
),

initial_apostrophe as (
    select
        *,
        case
            when list_contains(elision_marks, left(form_numeral, 1)) and length(form_numeral) > 1
                then chr(8217) || substr(form_numeral, 2)
            else form_numeral
        end as form_initial
    from numerals
),

psili_elided as (
    -- a word-final letter carrying only a smooth breathing is an elision mark (or a numeral's
    -- keraia) written as psili (UD Perseus: παῤ, δἰ, ἐκέλεὐ, ῤ for ρ’; a combining psili after
    -- a vowel composes to the same letters under NFC): the letter loses it and U+2019 follows. A
    -- breathing is genuine on a two-letter word-initial diphthong (εἰ, οὐ, αἰ, εὐ; two letters that
    -- are no diphthong, ιἀ, are a numeral whose keraia is typed as a psili: ια’; a lone letter
    -- with psili, ἀ, is a numeral's keraia: α’ as Gorman's α᾽), and a crasis coronis on the one long
    -- vowel or diphthong after the consonants of a one-syllable word (κοὐ, κεἰ, χὠ, χοἰ; δἰ, with a
    -- short ι, is elided διά).
    select
        i.*,
        case
            when
                p.base is not null
                and (
                    not p.requires_preceding_consonant
                    or (
                        -- two letters: a breathing on the second is genuine only on a diphthong (εἰ, οὐ), so
                        -- δἰ (elided διά) and ιἀ (the numeral 11, its keraia typed as a psili) lose it
                        (length(i.form_nfc0) <> 2 or not regexp_full_match(strip_accents(lower(i.form_nfc0)), '[αεηιουω][ιυ]'))
                        -- a crasis coronis: consonants and one long vowel or diphthong (κοὐ, κεἰ, χὠ)
                        and not regexp_full_match(strip_accents(lower(i.form_nfc0)), '[βγδζθκλμνξπρσςτφχψ]+(?:[αεηιουω][ιυ]|[ηω])')
                    )
                )
                then left(i.form_nfc0, -1) || p.base || chr(8217)
            else i.form_nfc0
        end as form_psili
    from (
        select
            *,
            nfc_normalize(form_initial) as form_nfc0
        from initial_apostrophe
    ) as i
    left join psili_letters as p on right(i.form_nfc0, 1) = chr(('0x' || substr(p.codepoint, 3))::integer)
),

elided as (
    select
        *,
        regexp_replace(
            case
                when list_contains(elision_marks, right(form_psili, 1))
                    then left(form_psili, -1) || chr(8217)
                else form_psili
            end,
            '[\x{0027}\x{02BC}\x{1FBD}\x{1FBF}]', chr(8217), 'g'
        ) as form_elided
    from psili_elided
),

cleaned as (
    select
        *,
        nfc_normalize({{ keep_greek('form_elided') }}) as form_clean,
        nfc_normalize(form_elided) as form_elided_nfc
    from elided
),

lowered as (
    select
        *,
        grave_to_acute(form_lower) as form
    from (
        select
            *,
            nfc_normalize(lower_grc(form_clean)) as form_lower
        from cleaned
    ) as c
),

lettered as (
    select
        *,
        regexp_matches(form, '\p{L}') as has_letter
    from lowered
),

final as (
    select
        s.sentence_uid,
        s.token_pos,
        s.source_form,
        s.surface,
        s.is_absorbed_piece,
        s.is_numeral_tag,
        l.form,
        l.has_letter,
        s.surface <> s.source_form as split_word_merged,
        l.form_trimmed <> l.surface as whitespace_removed,
        l.form_edited <> l.form_trimmed as editorial_marks_removed,
        l.form_greek <> l.form_edited as latin_letters_mapped,
        l.is_numeral and l.form_numeral <> nfc_normalize(l.form_greek) as numeral_keraia_unified,
        l.form_elided <> l.form_nfc0 or l.form_initial <> l.form_numeral as elision_unified,
        l.form_clean <> l.form_elided_nfc as stray_characters_removed,
        l.form_nfc0 <> l.form_initial as nfc_changed,
        l.form_lower <> l.form_clean as lowercased,
        l.form <> l.form_lower as grave_to_acute
    from surfaces as s
    inner join lettered as l on s.surface = l.surface and s.is_numeral_tag = l.is_numeral_tag
)

select * from final
