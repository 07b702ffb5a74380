-- Which crasis word do the projects that write it whole (project registry: writes_crasis_whole) write
-- for two hyphen pieces of the split projects (Gorman, Pedalion, ...: `τ-` + `ἐναντία`)? SPEC §5.1
-- split words. Letters only (lowercase, no diacritics, final sigma as σ), the pieces give a
-- consonant onset (the first piece's letters without its final vowels: `τ`, `κ`, `εγ`, none for `ὁ`) and
-- a tail (the second piece's letters after its leading vowels: `ναντια`); a crasis word is a word
-- of those projects with a breathing or coronis after its first letter (`τἀναντία`, `οὑμός`,
-- `κἀκεῖνοι`), spelled onset + vowels + tail, and not the second piece itself. Every such pair is
-- a candidate; `n_surfaces` > 1 marks pieces with several candidate words, `is_proposed` the one
-- proposed for them (the crasis vowels the second piece starts with, then the pieces' own spelling
-- if the writers write it, then the spelling written most often). The seed sql/seeds/crasis_forms.csv holds the reviewed proposals (derived from the build
-- before the seed existed; its `review` column says where the review departed from the proposal).
with

split_words as (select * from {{ ref('int_split_words') }}),

tokens as (select * from {{ ref('int_tokens') }}),

pieces as (
    select
        word_id,
        project,
        form,
        token_pos
    from split_words
    where split_kind = 'hyphen' and n_pieces = 2
),

words as (
    select
        word_id,
        any_value(project) as project,
        min_by(form, token_pos) as piece_1,
        max_by(form, token_pos) as piece_2
    from pieces
    group by word_id
),

piece_keys as (
    select
        *,
        replace(regexp_replace(lower(strip_accents(nfc_normalize(piece_1))), '[^\p{L}]', '', 'g'), 'ς', 'σ') as key_1,
        replace(regexp_replace(lower(strip_accents(nfc_normalize(piece_2))), '[^\p{L}]', '', 'g'), 'ς', 'σ') as key_2
    from words
),

piece_parts as (
    select
        *,
        regexp_replace(key_1, '[αεηιουω]+$', '') as onset,
        regexp_replace(key_2, '^[αεηιουω]+', '') as tail
    from piece_keys
    where
        regexp_matches(key_2, '^[αεηιουω]')
        -- a first piece without a consonant is a monosyllable (the article ὁ, ἁ; ὦ)
        and (regexp_matches(key_1, '[^αεηιουω]') or length(key_1) <= 2)
),

piece_pairs as (
    select
        piece_1,
        piece_2,
        onset,
        tail,
        key_2,
        count(*) as n_piece_words,
        list(distinct project order by project) as piece_projects
    from piece_parts
    group by piece_1, piece_2, onset, tail, key_2
),

writers as (
    -- words of the projects that write crasis whole, with a breathing or coronis after the first letter
    select
        project,
        nfc_normalize(trim(form)) as surface
    from tokens
    where
        {{ project_in('project', writes_crasis_whole='true') }}
        and (is_syntactic_word or is_multiword)
        and not contains(form, '-')
        and regexp_matches(trim(form), '^\p{L}')
        -- a letter with a breathing (precomposed, or a combining or spacing psili/dasia) after the
        -- first character and before another letter (built-in functions only: `sphragis sql` runs it)
        and regexp_matches(
            substr(nfc_normalize(trim(form)), 2),
            '(?:[\x{1F00}-\x{1F6F}\x{1F80}-\x{1FAF}\x{1FE4}\x{1FE5}]|[\x{0313}\x{0314}\x{0343}\x{1FBD}])\p{M}*\p{L}'
        )
),

writer_words as (
    select
        surface,
        count(*) as n_surface_tokens,
        list(distinct project order by project) as surface_projects,
        replace(regexp_replace(lower(strip_accents(surface)), '[^\p{L}]', '', 'g'), 'ς', 'σ') as surface_key
    from writers
    group by surface
),

matched as (
    select
        p.piece_1,
        p.piece_2,
        w.surface,
        p.n_piece_words,
        w.n_surface_tokens,
        -- the crasis vowels are those the second piece starts with (`κ-` + `ἀκ` is κἀκ, not κοὐκ)
        substr(w.surface_key, length(p.onset) + 1, length(w.surface_key) - length(p.onset) - length(p.tail))
        = regexp_extract(p.key_2, '^[αεηιουω]+') as keeps_piece_vowels,
        -- the split project's own spelling, when the writers write it too (`τ-` + `ἆλλα`: τἆλλα)
        lower(w.surface) = lower(nfc_normalize(replace(p.piece_1 || p.piece_2, '-', ''))) as is_concatenation,
        p.piece_projects,
        w.surface_projects
    from piece_pairs as p
    inner join writer_words as w
        on
            starts_with(w.surface_key, p.onset)
            and ends_with(w.surface_key, p.tail)
            and w.surface_key <> p.key_2
            -- onset + the crasis vowels (one to three) + tail
            and regexp_full_match(
                substr(w.surface_key, length(p.onset) + 1, length(w.surface_key) - length(p.onset) - length(p.tail)),
                '[αεηιουω]{1,3}'
            )
),

final as (
    select
        *,
        count(*) over (partition by piece_1, piece_2) as n_surfaces,
        -- the proposal: vowels kept, then the spelling written most often
        row_number() over (
            partition by piece_1, piece_2
            order by keeps_piece_vowels desc, is_concatenation desc, n_surface_tokens desc, surface asc
        ) = 1 as is_proposed
    from matched
)

select * from final
