-- Per project, how many tokens each SPEC §5 rule changed: punctuation and artificial tokens
-- removed, dependents re-attached, elision marks unified, NFC, lowercase; and sentences left
-- without tokens (dropped). Grain: one row per project.
with

tokens as (select * from {{ ref('int_tokens') }}),

published as (select * from {{ ref('int_published_tokens') }}),

sentences as (select * from {{ ref('int_sentences') }}),

units as (select * from {{ ref('int_units') }}),

word_tokens as (
    select
        project,
        count(*) as word_tokens,
        count(*) filter (where is_artificial) as artificial_tokens
    from tokens
    where is_word
    group by project
),

published_counts as (
    select
        s.project,
        count(*) as published_tokens,
        count(*) filter (where p.elision_unified) as elision_marks_unified,
        count(*) filter (where p.nfc_changed) as forms_nfc_normalized,
        count(*) filter (where p.lowercased) as forms_lowercased,
        count(*) filter (where p.repair like '%punct%') as reattached_from_punctuation,
        count(*) filter (where p.repair like '%ellip%') as reattached_from_elliptic
    from published as p
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
        w.word_tokens - w.artificial_tokens - p.published_tokens as punctuation_tokens_removed,
        p.published_tokens,
        p.reattached_from_punctuation,
        p.reattached_from_elliptic,
        p.elision_marks_unified,
        p.forms_nfc_normalized,
        p.forms_lowercased,
        d.sentences_without_tokens
    from word_tokens as w
    inner join published_counts as p on w.project = p.project
    inner join dropped as d on w.project = d.project
)

select * from final
