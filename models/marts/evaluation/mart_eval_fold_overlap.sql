-- Leakage control (SPEC §12, seed 001 "Leakage controls"): every sentence of a training-side
-- project whose text equals a sentence of a UD evaluation
-- fold (UD Perseus or UD PROIEL, dev and test). Grain: one row per (training-side sentence,
-- evaluation-fold sentence) pair.
--
-- Form sequence: the NFC-normalized FORMs of the sentence's word tokens in order (CoNLL-U
-- multiword ranges and empty nodes, and AGDT artificial nodes, excluded). Two sentences match
-- when their sequences are equal after dropping punctuation tokens (forms made only of Unicode
-- punctuation/symbol characters), because UD PROIEL has no punctuation tokens at all and Gorman
-- writes the ano teleia as ':' where AGDT and UD Perseus write '·'. `forms_identical` says
-- whether the full sequences, punctuation included, are equal too (the seed's strict test; the
-- UD Perseus → AGDT resolution in mart_ud_perseus_agdt_overlap uses only those pairs).
-- The evaluation folds are the rows of the seed evaluation_folds; the training side is every
-- project seed 001's training treebank draws from (project registry, in_training_treebank).
with

sentences as (select * from {{ ref('int_sentences') }}),

tokens as (select * from {{ ref('int_tokens') }}),

evaluation_folds as (select * from {{ ref('evaluation_folds') }}),

training_projects as (
    select project from {{ ref('projects') }}
    where in_training_treebank
),

scoped_sentences as (
    select
        sentence_uid,
        project,
        path,
        upstream_sentence_id,
        case
            when project in (select evaluation_folds.fold_project from evaluation_folds)
                then regexp_extract(path, '-ud-(dev|test|train)\.conllu$', 1)
        end as fold
    from sentences
    where
        project in (select training_projects.project from training_projects)
        or project in (select evaluation_folds.fold_project from evaluation_folds)
),

fold_keys as (
    select fold_project || '-' || fold as fold_key from evaluation_folds
),

word_forms as (
    select
        tokens.sentence_uid,
        tokens.token_pos,
        nfc_normalize(coalesce(tokens.form, '')) as form
    from tokens
    inner join scoped_sentences on tokens.sentence_uid = scoped_sentences.sentence_uid
    where
        tokens.is_syntactic_word
        and not tokens.is_artificial
        and (
            scoped_sentences.project || '-' || scoped_sentences.fold in (select fold_keys.fold_key from fold_keys)
            or scoped_sentences.fold is null
        )
),

form_sequences as (
    select
        sentence_uid,
        list(form order by token_pos) as forms
    from word_forms
    group by sentence_uid
),

sequences as (
    select
        sentence_uid,
        forms,
        {{ form_sequence_words('forms') }} as words  -- noqa: RF02
    from form_sequences
),

fold_sentences as (
    select
        scoped_sentences.sentence_uid,
        scoped_sentences.project,
        scoped_sentences.fold,
        scoped_sentences.upstream_sentence_id,
        sequences.forms,
        sequences.words
    from scoped_sentences
    inner join sequences on scoped_sentences.sentence_uid = sequences.sentence_uid
    where scoped_sentences.project || '-' || scoped_sentences.fold in (select fold_keys.fold_key from fold_keys)
),

training_sentences as (
    select
        scoped_sentences.sentence_uid,
        scoped_sentences.project,
        scoped_sentences.path,
        scoped_sentences.upstream_sentence_id,
        sequences.forms,
        sequences.words
    from scoped_sentences
    inner join sequences on scoped_sentences.sentence_uid = sequences.sentence_uid
    where scoped_sentences.project in (select training_projects.project from training_projects)
),

matched as (
    select
        training_sentences.project,
        training_sentences.sentence_uid,
        training_sentences.path,
        training_sentences.upstream_sentence_id,
        fold_sentences.project as fold_project,
        fold_sentences.fold,
        fold_sentences.sentence_uid as fold_sentence_uid,
        fold_sentences.upstream_sentence_id as fold_sent_id,
        len(training_sentences.words) as n_words,
        training_sentences.forms = fold_sentences.forms as forms_identical
    from training_sentences
    -- an all-punctuation sentence matches only when its forms are identical
    inner join fold_sentences on {{ form_sequences_match('training_sentences', 'fold_sentences') }}
),

final as (
    select
        project,
        sentence_uid,
        path,
        upstream_sentence_id,
        fold_project,
        fold,
        fold_sentence_uid,
        fold_sent_id,
        n_words,
        forms_identical,
        case when forms_identical then 'forms' else 'forms_without_punctuation' end as match_rule
    from matched
)

select * from final
order by project, sentence_uid, fold_project, fold, fold_sentence_uid
