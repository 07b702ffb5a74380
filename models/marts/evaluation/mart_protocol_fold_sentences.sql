-- The sentence selection of the protocol's further evaluation folds (SPEC §12, seed 001
-- "Documentary Koine: the PapyGreek fold" and "Verse, out of domain"), like the UD Perseus overlap
-- manifest: one row per source sentence of each fold (the sentences of its files,
-- mart_protocol_fold_files) with every exclusion test and its fate. The tests:
--   * artificial: a token is an artificial node (elliptic or inserted, no surface form);
--   * incomplete: a real token misses its form, head, relation, postag or lemma;
--   * no_clean_reading: a real token's form does not reduce to a clean reading once the editorial
--     apparatus is stripped (mart_protocol_fold_tokens: an illegibility marker, a fully erased word);
--   * leakage: the sentence's NFC form sequence of readings, with or without punctuation (macros
--     form_sequence_words and form_sequences_match: the key mart_eval_fold_overlap uses), is the form
--     sequence of a sentence of one of the fold's training projects (seed
--     protocol_fold_training_projects; seed 001: AGDT + Gorman + Pedalion).
-- (Work-level disjointness leaves whole files out: mart_protocol_fold_files.)
-- Beyond the seed, `undotted_training_sentence_key` names a training sentence equal to it once the
-- dot below (an uncertain letter) is taken off its readings: published beside the fold, which keeps
-- the seed's key by default.
-- A sentence excluded on several counts is counted under the first in the seed
-- protocol_fold_reasons' reason_order; `reasons` lists them all. Kept sentences have no reason.
-- Grain: one row per (fold, sentence_uid).
with

fold_tokens as (select * from {{ ref('mart_protocol_fold_tokens') }}),

files as (select * from {{ ref('mart_protocol_fold_files') }}),

sentences as (select * from {{ ref('int_sentences') }}),

tokens as (select * from {{ ref('int_tokens') }}),

training_projects as (select * from {{ ref('protocol_fold_training_projects') }}),

reasons as (select * from {{ ref('protocol_fold_reasons') }}),

fold_sentences as (
    select
        f.fold,
        s.sentence_uid,
        s.sentence_key,
        s.project,
        s.path,
        s.file_name,
        s.sentence_pos,
        s.upstream_sentence_id,
        f.work_id
    from files as f
    inner join sentences as s on f.file_id = s.file_id
    where f.in_fold
),

token_tests as (
    select
        fold,
        sentence_uid,
        count(*) filter (where not is_artificial) as n_tokens,
        bool_or(is_artificial) as has_artificial,
        bool_or(not is_artificial and len(missing) > 0) as is_incomplete,
        bool_or(not is_artificial and not is_clean_reading) as has_unclean_reading,
        list(nfc_normalize(coalesce(reading, '')) order by token_pos) filter (where not is_artificial) as forms
    from fold_tokens
    group by fold, sentence_uid
),

sequences as (
    select
        fold,
        sentence_uid,
        forms,
        {{ form_sequence_words('forms') }} as words  -- noqa: RF02
    from token_tests
),

training_sentences as (
    select
        p.fold,
        s.sentence_uid,
        s.sentence_key,
        list(nfc_normalize(coalesce(t.form, '')) order by t.token_pos) as forms
    from training_projects as p
    inner join sentences as s on p.project = s.project
    inner join tokens as t on s.sentence_uid = t.sentence_uid
    where t.is_syntactic_word and not t.is_artificial
    group by p.fold, s.sentence_uid, s.sentence_key
),

training_sequences as (
    select
        fold,
        sentence_uid,
        sentence_key,
        forms,
        {{ form_sequence_words('forms') }} as words  -- noqa: RF02
    from training_sentences
),

leaks as (
    select
        f.fold,
        f.sentence_uid,
        count(*) as n_training_matches,
        min(t.sentence_key) as training_sentence_key,
        bool_or(t.forms = f.forms) as forms_identical
    from sequences as f
    inner join training_sequences as t on f.fold = t.fold and {{ form_sequences_match('t', 'f') }}
    group by f.fold, f.sentence_uid
),

undotted_sequences as (
    -- beyond the seed: the readings without the dot below (U+0323, a letter the editor reads as
    -- uncertain), which the seed's key keeps and the training projects' texts do not write
    select
        fold,
        sentence_uid,
        forms,
        {{ form_sequence_words('forms') }} as words  -- noqa: RF02
    from (
        select
            fold,
            sentence_uid,
            list_transform(forms, lambda f: nfc_normalize(replace(nfd(f), chr(803), ''))) as forms  -- noqa: RF02
        from sequences
        where list_bool_or(list_transform(forms, lambda f: contains(nfd(f), chr(803))))  -- noqa: RF02
    ) as dotted
),

undotted_leaks as (
    select
        f.fold,
        f.sentence_uid,
        min(t.sentence_key) as training_sentence_key
    from undotted_sequences as f
    inner join training_sequences as t on f.fold = t.fold and {{ form_sequences_match('t', 'f') }}
    group by f.fold, f.sentence_uid
),

tested as (
    select
        s.*,
        coalesce(k.n_tokens, 0) as n_tokens,
        q.forms,
        coalesce(k.has_artificial, false) as has_artificial,
        coalesce(k.is_incomplete, false) or k.sentence_uid is null as is_incomplete,
        coalesce(k.has_unclean_reading, false) as has_unclean_reading,
        l.sentence_uid is not null as is_leaked,
        coalesce(l.n_training_matches, 0) as n_training_matches,
        l.training_sentence_key,
        l.forms_identical as leak_forms_identical,
        u.training_sentence_key as undotted_training_sentence_key
    from fold_sentences as s
    left join token_tests as k on s.fold = k.fold and s.sentence_uid = k.sentence_uid
    left join sequences as q on s.fold = q.fold and s.sentence_uid = q.sentence_uid
    left join leaks as l on s.fold = l.fold and s.sentence_uid = l.sentence_uid
    left join undotted_leaks as u on s.fold = u.fold and s.sentence_uid = u.sentence_uid
),

flagged as (
    select
        tested.*,
        list_filter([
            case when tested.has_artificial then 'artificial' end,
            case when tested.is_incomplete then 'incomplete' end,
            case when tested.has_unclean_reading then 'no_clean_reading' end,
            case when tested.is_leaked then 'leakage' end
        ], lambda r: r is not null) as reasons  -- noqa: RF02, RF03
    from tested
),

ranked as (
    select
        u.fold,
        u.sentence_uid,
        min_by(r.reason, r.reason_order) as reason
    from (
        select
            fold,
            sentence_uid,
            unnest(reasons) as reason_name
        from flagged
    ) as u
    inner join reasons as r on u.reason_name = r.reason
    group by u.fold, u.sentence_uid
),

final as (
    select
        f.fold,
        f.sentence_uid,
        f.sentence_key,
        f.project,
        f.path,
        f.file_name,
        f.sentence_pos,
        f.upstream_sentence_id,
        f.work_id,
        f.n_tokens,
        f.forms,
        f.has_artificial,
        f.is_incomplete,
        f.has_unclean_reading,
        f.is_leaked,
        f.n_training_matches,
        f.training_sentence_key,
        f.leak_forms_identical,
        f.undotted_training_sentence_key,
        f.reasons,
        r.reason,
        r.reason is null as is_kept
    from flagged as f
    left join ranked as r on f.fold = r.fold and f.sentence_uid = r.sentence_uid
)

select * from final
order by fold, path, sentence_pos
