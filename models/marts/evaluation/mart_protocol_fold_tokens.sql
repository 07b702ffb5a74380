-- The tokens of the protocol's further evaluation folds (SPEC §12, seed 001 "Documentary Koine"
-- and "Verse, out of domain"): one row per word token of every sentence a fold of the seed
-- protocol_folds draws from (mart_protocol_fold_files: the fold project's files, those of another
-- genre and duplicate files left out), with what the sentence selection needs:
--   * the reading: the published layer's form (PapyGreek: reg) with the editorial apparatus
--     stripped by the seed apparatus_rules in rule_order (a span deleted with its content, or
--     characters dropped), NFC; `is_clean_reading` says whether it reduces to a clean word (a
--     letter or combining mark or apostrophe in every position and a Greek letter somewhere) or,
--     for punctuation (AGDT tag `u`), to something at all;
--   * what is missing of form, head, relation, postag and lemma (an artificial node is not a
--     real token: it has its own flag);
--   * the lemma emitted: the normalized lemma of SPEC §3 (int_token_morphology), except where a
--     fold's source lemma needs repair (seed protocol_folds.repair_lemmas): a dictionary-citation
--     tail cut at the first comma or opening parenthesis and the Latin look-alike vowels of the
--     seed protocol_fold_lemma_vowels made Greek, the result normalized as every lemma is
--     (macro lemma_cased); `lemma_repair` names what changed.
-- Grain: one row per (fold, sentence_uid, token_pos) of the syntactic word tokens.
with

files as (select * from {{ ref('mart_protocol_fold_files') }}),

protocol_folds as (select * from {{ ref('protocol_folds') }}),

sentences as (select * from {{ ref('int_sentences') }}),

tokens as (select * from {{ ref('int_tokens') }}),

morphology as (select * from {{ ref('int_token_morphology') }}),

apparatus_rules as (
    select list(struct_pack(action := action, pattern := pattern) order by rule_order) as rules
    from {{ ref('apparatus_rules') }}
),

lemma_vowels as (
    select list(struct_pack(latin := latin, greek := greek)) as pairs
    from {{ ref('protocol_fold_lemma_vowels') }}
),

fold_tokens as (
    select
        f.fold,
        s.sentence_uid,
        t.token_pos,
        t.src_id,
        t.form,
        t.lemma as source_lemma,
        t.postag,
        t.relation,
        t.head_src,
        t.is_artificial,
        p.repair_lemmas
    from files as f
    inner join protocol_folds as p on f.fold = p.fold
    inner join sentences as s on f.file_id = s.file_id
    inner join tokens as t on s.sentence_uid = t.sentence_uid
    where f.in_fold and t.is_syntactic_word
),

readings as (
    -- once per distinct form: the apparatus rules use a pattern from the seed
    select
        d.form,
        {{ strip_apparatus('d.form', 'r.rules') }} as reading  -- noqa: PRS, LT02
    from (
        select distinct form from fold_tokens
        where form is not null
    ) as d
    cross join apparatus_rules as r
),

lemma_repairs as (
    select
        d.source_lemma,
        trim(
            trim(regexp_replace(nfc_normalize(d.source_lemma), '[,(，].*$', '', 's')),
            '‐‑‒–—―-'
        ) as lemma_cut,
        v.pairs
    from (
        select distinct source_lemma from fold_tokens
        where repair_lemmas and source_lemma is not null
    ) as d
    cross join lemma_vowels as v
),

lemma_mapped as (
    select
        source_lemma,
        lemma_cut,
        {{ replace_pairs('lemma_cut', 'pairs') }} as lemma_vowels_mapped  -- noqa: PRS, LT02
    from lemma_repairs
),

lemma_repaired as (
    select
        source_lemma,
        lemma_cut,
        lemma_cut <> nfc_normalize(source_lemma) as cut,
        case when regexp_matches(lemma_cut, '\p{Greek}') then lemma_vowels_mapped else lemma_cut end as lemma_fixed
    from lemma_mapped
),

final as (
    select
        t.fold,
        t.sentence_uid,
        t.token_pos,
        t.src_id,
        t.form,
        r.reading,
        coalesce(starts_with(t.postag, 'u'), false) as is_punct,
        t.is_artificial,
        case
            when coalesce(starts_with(t.postag, 'u'), false) then coalesce(r.reading, '') <> ''
            else coalesce(
                regexp_full_match(r.reading, '[\p{L}\p{M}\x{0027}\x{2019}\x{02BC}\x{1FBD}\x{1FBF}\x{02B9}]+')
                and regexp_matches(r.reading, '\p{Greek}'),
                false
            )
        end as is_clean_reading,
        list_filter([
            case when coalesce(t.form, '') = '' then 'form' end,
            case when coalesce(t.head_src, '') = '' then 'head' end,
            case when t.relation is null then 'relation' end,
            case when t.postag is null then 'postag' end,
            case when coalesce(t.source_lemma, '') = '' then 'lemma' end
        ], lambda x: x is not null) as missing,  -- noqa: RF02
        t.source_lemma,
        m.lemma as normalized_lemma,
        case
            when lr.source_lemma is not null and lr.lemma_fixed <> nfc_normalize(lr.source_lemma)
                then {{ lemma_cased('lr.lemma_fixed') }}
            else m.lemma
        end as lemma,
        case
            when lr.source_lemma is null or lr.lemma_fixed = nfc_normalize(lr.source_lemma) then null
            when lr.cut and lr.lemma_fixed <> lr.lemma_cut then 'citation_tail;latin_vowel'
            when lr.cut then 'citation_tail'
            else 'latin_vowel'
        end as lemma_repair
    from fold_tokens as t
    left join readings as r on t.form = r.form
    left join morphology as m on t.sentence_uid = m.sentence_uid and t.token_pos = m.token_pos
    left join lemma_repaired as lr on t.source_lemma = lr.source_lemma
)

select * from final
order by fold, sentence_uid, token_pos
