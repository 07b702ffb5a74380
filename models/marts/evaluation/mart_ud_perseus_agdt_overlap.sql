-- UD Perseus → AGDT resolution (SPEC §12, seed 001 "Leakage controls"): every UD Perseus dev
-- and test sentence resolved to the AGDT 2.1 sentence it was converted from, by NFC
-- form-sequence equality with punctuation included (the candidate pairs are the
-- forms_identical AGDT rows of mart_eval_fold_overlap). Grain: one row per UD Perseus dev/test
-- sentence.
--
-- Resolution rule (deterministic):
--   * exactly one AGDT sentence has the identical form sequence → resolved to it;
--   * several do (short or repeated sentences) → resolved to the one the UD sent_id names
--     (`<AGDT file name>@<AGDT sentence id>`) if it is among them, else unresolved
--     ('ambiguous: N AGDT sentences match');
--   * none does → unresolved ('no AGDT sentence with identical forms').
-- The sent_id is only a hint: `hint_agrees` records whether it names the resolved sentence.
-- The UD treebank and the native one it was converted from are the project registry's
-- `converted_from` pairs (UD Perseus from AGDT).
with

sentences as (select * from {{ ref('int_sentences') }}),

fold_overlap as (select * from {{ ref('mart_eval_fold_overlap') }}),

conversions as (
    {{ registry_conversions() }}
),

ud_sentences as (
    select
        s.sentence_uid as ud_sentence_uid,
        s.upstream_sentence_id as ud_sent_id,
        regexp_extract(s.path, '-ud-(dev|test|train)\.conllu$', 1) as fold,
        nullif(regexp_extract(s.upstream_sentence_id, '^(.*)@[^@]*$', 1), '') as hint_file_name,
        nullif(regexp_extract(s.upstream_sentence_id, '@([^@]*)$', 1), '') as hint_sentence_id,
        c.source_project
    from sentences as s
    inner join conversions as c on s.project = c.ud_project
),

agdt_sentences as (
    select
        sentence_uid,
        path,
        file_name,
        upstream_sentence_id,
        project
    from sentences
    where project in (select conversions.source_project from conversions)
),

hinted as (
    -- the AGDT sentence the sent_id names (lowest sentence_uid if a file name were repeated)
    select
        ud_sentences.ud_sentence_uid,
        min(agdt_sentences.sentence_uid) as hint_sentence_uid
    from ud_sentences
    inner join agdt_sentences
        on
            ud_sentences.source_project = agdt_sentences.project
            and ud_sentences.hint_file_name = agdt_sentences.file_name
            and ud_sentences.hint_sentence_id = agdt_sentences.upstream_sentence_id
    group by ud_sentences.ud_sentence_uid
),

candidates as (
    select
        o.fold_sentence_uid as ud_sentence_uid,
        list(o.sentence_uid order by o.sentence_uid) filter (where o.forms_identical) as candidate_sentence_uids,
        count(*) filter (where not o.forms_identical) as n_punct_variant_candidates
    from fold_overlap as o
    inner join conversions as c on o.fold_project = c.ud_project and o.project = c.source_project
    group by o.fold_sentence_uid
),

resolved as (
    select
        ud_sentences.* exclude (ud_sentences.source_project),
        hinted.hint_sentence_uid,
        coalesce(candidates.candidate_sentence_uids, []) as candidate_sentence_uids,
        coalesce(candidates.n_punct_variant_candidates, 0) as n_punct_variant_candidates,
        len(coalesce(candidates.candidate_sentence_uids, [])) as n_candidates,
        case
            when len(candidates.candidate_sentence_uids) = 1 then candidates.candidate_sentence_uids[1]
            when list_contains(candidates.candidate_sentence_uids, hinted.hint_sentence_uid)
                then hinted.hint_sentence_uid
        end as agdt_sentence_uid
    from ud_sentences
    left join hinted on ud_sentences.ud_sentence_uid = hinted.ud_sentence_uid
    left join candidates on ud_sentences.ud_sentence_uid = candidates.ud_sentence_uid
    where ud_sentences.fold in ('dev', 'test')
),

final as (
    select
        resolved.fold,
        resolved.ud_sentence_uid,
        resolved.ud_sent_id,
        resolved.agdt_sentence_uid,
        agdt_sentences.path as agdt_path,
        agdt_sentences.file_name as agdt_file_name,
        agdt_sentences.upstream_sentence_id as agdt_sentence_id,
        resolved.agdt_sentence_uid is not null as resolved,
        case
            when resolved.agdt_sentence_uid is null then null
            when resolved.n_candidates = 1 then 'unique form match'
            else 'form match disambiguated by sent_id'
        end as resolution,
        case
            when resolved.n_candidates = 0 then 'no AGDT sentence with identical forms'
            when resolved.agdt_sentence_uid is null
                then 'ambiguous: ' || resolved.n_candidates || ' AGDT sentences match'
        end as reason,
        resolved.n_candidates,
        resolved.candidate_sentence_uids,
        resolved.n_punct_variant_candidates,
        resolved.hint_file_name,
        resolved.hint_sentence_id,
        resolved.hint_sentence_uid,
        coalesce(resolved.agdt_sentence_uid = resolved.hint_sentence_uid, false) as hint_agrees
    from resolved
    left join agdt_sentences on resolved.agdt_sentence_uid = agdt_sentences.sentence_uid
)

select * from final
order by fold, ud_sentence_uid
