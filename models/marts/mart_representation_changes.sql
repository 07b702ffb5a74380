-- Per project, how many tokens each SPEC §5 / §5.1 rule changed: punctuation and artificial tokens
-- removed, dependents re-attached, split words rejoined (words, and pieces absorbed), tokens removed
-- for having no letter left, editorial marks removed, Latin look-alike letters mapped, elision marks
-- unified, other characters removed, NFC, lowercase, grave → acute; the word classes of SPEC §5.1
-- (split words published from the crasis table, as the source's own surface, or left as their
-- longer piece; elision and prodelision marks attached to their word; numerals; tags completed by
-- the plausibility rule; lemmas with a mark dropped at an edge); the lemma rules; and sentences
-- left without tokens (dropped). Grain: one row per project.
with

tokens as (select * from {{ ref('int_tokens') }}),

published as (select * from {{ ref('int_published_tokens') }}),

links as (select * from {{ ref('int_tree_links') }}),

morphology as (select * from {{ ref('int_token_morphology') }}),

split_words as (select * from {{ ref('int_split_words') }}),

sentences as (select * from {{ ref('int_sentences') }}),

units as (select * from {{ ref('int_units') }}),

word_tokens as (
    select
        project,
        count(*) as word_tokens,
        count(*) filter (where is_artificial) as artificial_tokens
    from tokens
    where is_syntactic_word
    group by project
),

removed as (
    select
        project,
        count(*) filter (where removed_kind = 'split_piece') as split_pieces_absorbed,
        count(*) filter (where removed_kind = 'no_letter') as no_letter_tokens_removed,
        count(*) filter (where removed_kind = 'punct') as punctuation_tokens_removed
    from links
    group by project
),

published_counts as (
    select
        s.project,
        count(*) as published_tokens,
        count(*) filter (where p.repair like '%punct%') as reattached_from_punctuation,
        count(*) filter (where p.repair like '%ellip%') as reattached_from_elliptic,
        count(*) filter (where p.repair like '%split_word:%') as split_words_rejoined,
        count(*) filter (where p.repair like '%reattached_from_split_piece%') as reattached_from_split_piece,
        count(*) filter (where p.repair like '%reattached_from_no_letter%') as reattached_from_no_letter,
        count(*) filter (where p.whitespace_normalized) as forms_whitespace_removed,
        count(*) filter (where p.editorial_marks_removed) as forms_editorial_marks_removed,
        count(*) filter (where p.latin_letters_mapped) as forms_latin_letters_mapped,
        count(*) filter (where p.numeral_keraia_unified) as numerals_keraia_unified,
        count(*) filter (where p.elision_unified) as elision_marks_unified,
        count(*) filter (where p.stray_characters_removed) as forms_other_characters_removed,
        count(*) filter (where p.nfc_changed) as forms_nfc_normalized,
        count(*) filter (where p.lowercased) as forms_lowercased,
        count(*) filter (where p.grave_to_acute) as forms_grave_to_acute
    from published as p
    inner join sentences as s on p.sentence_uid = s.sentence_uid
    group by s.project
),

lemma_counts as (
    -- the lemma rules of int_token_morphology (lemma_steps), counted on published tokens
    select
        s.project,
        count(*) filter (where m.lemma_rules is not null and list_contains(m.lemma_rules, 'leading_mark')) as lemmas_leading_mark_removed,
        count(*) filter (where list_contains(m.lemma_rules, 'digits')) as lemmas_digits_removed,
        count(*) filter (where list_contains(m.lemma_rules, 'latin_letters')) as lemmas_latin_letters_mapped,
        count(*) filter (where list_contains(m.lemma_rules, 'other_characters')) as lemmas_other_characters_removed,
        count(*) filter (where list_contains(m.lemma_rules, 'grave_to_acute')) as lemmas_grave_to_acute,
        count(*) filter (where list_contains(m.lemma_rules, 'nulled')) as lemmas_nulled,
        count(*) filter (where list_contains(m.lemma_rules, 'compound_mapped')) as lemmas_compound_mapped,
        count(*) filter (where list_contains(m.lemma_rules, 'edge_mark')) as lemmas_edge_mark_removed,
        count(*) filter (where m.lemma is null) as lemmas_null
    from published as p
    inner join morphology as m on p.sentence_uid = m.sentence_uid and p.token_pos = m.token_pos
    inner join sentences as s on p.sentence_uid = s.sentence_uid
    group by s.project
),

word_classes as (
    -- published words by how their pieces were resolved (int_split_words.resolution)
    select
        s.project,
        count(*) filter (where w.resolution = 'crasis_table') as split_words_from_crasis_table,
        count(*) filter (where w.resolution = 'source_surface') as split_words_source_surface,
        count(*) filter (where w.resolution = 'multiword_token') as split_words_multiword_token,
        count(*) filter (where w.resolution = 'longer_piece') as split_words_longer_piece_kept,
        count(*) filter (where w.resolution = 'elision_mark') as elision_marks_attached,
        count(*) filter (where w.resolution = 'prodelision_mark') as prodelision_marks_attached
    from sentences as s
    left join published as p on s.sentence_uid = p.sentence_uid
    left join split_words as w on p.sentence_uid = w.sentence_uid and p.token_pos = w.token_pos and w.is_survivor
    group by s.project
),

tag_counts as (
    -- tags completed only by the plausibility rule of int_token_morphology (several well-formed
    -- readings, one plausible), counted on published tokens
    select
        s.project,
        count(*) filter (where m.tag_rule like '%plausible_reading%') as tags_plausible_reading
    from published as p
    inner join morphology as m on p.sentence_uid = m.sentence_uid and p.token_pos = m.token_pos
    inner join sentences as s on p.sentence_uid = s.sentence_uid
    group by s.project
),

dropped as (
    select
        s.project,
        count(*) filter (where u.sentence_uid is null) as sentences_without_tokens
    from sentences as s
    left join units as u on s.sentence_uid = u.sentence_uid
    group by s.project
),

final as (
    select
        w.project,
        w.word_tokens,
        w.artificial_tokens,
        r.punctuation_tokens_removed,
        r.split_pieces_absorbed,
        r.no_letter_tokens_removed,
        p.* exclude (project),  -- noqa: RF02
        l.* exclude (project),  -- noqa: RF02
        c.* exclude (project),  -- noqa: RF02
        t.tags_plausible_reading,
        d.sentences_without_tokens
    from word_tokens as w
    inner join published_counts as p on w.project = p.project
    inner join removed as r on w.project = r.project
    inner join lemma_counts as l on w.project = l.project
    inner join word_classes as c on w.project = c.project
    inner join tag_counts as t on w.project = t.project
    inner join dropped as d on w.project = d.project
)

select * from final
