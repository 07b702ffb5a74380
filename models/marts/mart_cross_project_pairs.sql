-- Cross-project identity (SPEC §5.1): every pair of records of one sentence (same dedup_key, §7)
-- from two different projects, whether their published `text` is identical and, if not, which
-- kinds of difference separate them (`difference_class`: the dimensions on which the two texts
-- still differ when every other dimension is neutralized; the letters are equal by construction
-- of the dedup key). Pairs whose token counts are equal are aligned position by position
-- (`is_aligned`); their per-token agreement is in mart_cross_project_token_pairs.
-- `trismegistos_id` is the document both records belong to by their projects' registry
-- trismegistos_rule (int_sentence_documents), when it is one: the same papyrus annotated by two
-- projects (`same_document`), not a formula two documents share.
-- Grain: one row per (sentence_uid_a, sentence_uid_b), project_a < project_b.
with

units as (select * from {{ ref('int_units') }}),

curated as (select * from {{ ref('int_curated_sentences') }}),

documents as (select * from {{ ref('int_sentence_documents') }}),

records as (
    select
        u.sentence_uid,
        u.project,
        u.dedup_key,
        u.text,
        u.n_tokens,
        c.is_retained,
        d.trismegistos_id
    from units as u
    inner join curated as c on u.sentence_uid = c.sentence_uid
    left join documents as d on u.sentence_uid = d.sentence_uid
    -- a file duplicating another of its project counts once (int_duplicate_files)
    where u.dedup_key <> '' and c.decision is distinct from 'duplicate_file'
),

pairs as (
    select
        a.dedup_key,
        a.project as project_a,
        b.project as project_b,
        a.project || '–' || b.project as project_pair,
        a.sentence_uid as sentence_uid_a,
        b.sentence_uid as sentence_uid_b,
        a.text as text_a,
        b.text as text_b,
        a.n_tokens as n_tokens_a,
        b.n_tokens as n_tokens_b,
        coalesce(a.is_retained and b.is_retained, false) as both_retained,
        case when a.trismegistos_id = b.trismegistos_id then a.trismegistos_id end as trismegistos_id,
        coalesce(a.trismegistos_id = b.trismegistos_id, false) as same_document,
        a.text = b.text as text_identical,
        a.n_tokens = b.n_tokens as is_aligned
    from records as a
    inner join records as b on a.dedup_key = b.dedup_key and a.project < b.project
),

skeletons as (
    -- each text reduced to its letters plus one kind of non-letter content (NFD, so that accents,
    -- breathings and iota subscripts are separate code points); two texts differ on a dimension
    -- exactly when these skeletons differ
    select
        *,
        {{ text_skeletons('text_a', 'a') }},
        {{ text_skeletons('text_b', 'b') }}
    from pairs
),

classified as (
    select
        * exclude (
            words_a, words_b, apostrophes_a, apostrophes_b, other_chars_a, other_chars_b,
            accents_a, accents_b, graveless_a, graveless_b, other_marks_a, other_marks_b
        ),
        case
            when text_identical then 'identical'
            else coalesce(nullif(array_to_string(list_filter([
                case when words_a <> words_b then 'word_division' end,
                case when apostrophes_a <> apostrophes_b then 'apostrophe' end,
                case when other_chars_a <> other_chars_b then 'non_letter_characters' end,
                case when accents_a <> accents_b and graveless_a = graveless_b then 'grave_acute' end,
                case when graveless_a <> graveless_b then 'accents' end,
                case when other_marks_a <> other_marks_b then 'breathing_diaeresis_iota' end
            ], lambda x: x is not null), '+'), ''), 'other')  -- noqa: RF02
        end as difference_class
    from skeletons
)

select * from classified
