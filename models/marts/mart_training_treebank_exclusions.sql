-- Sentences left out of the training treebank, each with its reason (seed 001 "Leakage
-- controls"). Rules, each switchable by a build variable, in the order that names the reason:
--   ud_perseus_source  an AGDT sentence that a protected UD Perseus fold sentence was converted
--                      from (every identical candidate of mart_ud_perseus_agdt_overlap);
--   fold_text_match    its SPEC §7 dedup key equals that of a sentence of a protected fold
--                      (match_rule says whether mart_eval_fold_overlap also pairs them by forms);
--   fold_work          its work (works registry work_id) occurs in a fold of
--                      var('treebank_work_folds') that is protected (seed 001: Herodotus, PROIEL);
--   curation           with var('treebank_curation'), the works registry does not retain it (SPEC §6);
--   no_word            no token with a letter (no dedup key): nothing to train on;
--   duplicate          with var('treebank_dedup'), a sentence of the selection with the same
--                      dedup key comes first by SPEC §7 priority (project, then sentence_uid).
-- `reasons` lists every rule among the first five that hits the sentence. Grain: one row per
-- excluded candidate sentence (int_training_candidates).
with

candidates as (select * from {{ ref('int_training_candidates') }}),

sentences as (select * from {{ ref('int_sentences') }}),

units as (select * from {{ ref('int_units') }}),

curated as (select * from {{ ref('int_curated_sentences') }}),

perseus_overlap as (select * from {{ ref('mart_ud_perseus_agdt_overlap') }}),

fold_overlap as (select * from {{ ref('mart_eval_fold_overlap') }}),

protected_folds as (
    select unnest({{ var('treebank_folds') }}::varchar[]) as fold_name
),

work_folds as (
    select unnest({{ var('treebank_work_folds') }}::varchar[]) as fold_name
),

fold_sentences as (
    -- every sentence of a protected fold, with its dedup key and work
    select
        f.sentence_uid,
        f.fold_name,
        f.upstream_sentence_id as fold_sent_id,
        u.dedup_key,
        c.work_id
    from (
        select
            *,
            project || '-' || regexp_extract(path, '-ud-(dev|test|train)\.conllu$', 1) as fold_name
        from sentences
        where {{ project_in('project', format='conllu') }}
    ) as f
    inner join protected_folds as p on f.fold_name = p.fold_name
    left join units as u on f.sentence_uid = u.sentence_uid
    left join curated as c on f.sentence_uid = c.sentence_uid
),

perseus_folds as (
    -- each resolved UD sentence with its fold's name (the UD project's key and the split)
    select
        o.*,
        u.project || '-' || o.fold as fold_name
    from perseus_overlap as o
    inner join sentences as u on o.ud_sentence_uid = u.sentence_uid
),

perseus_hits as (
    select
        x.sentence_uid,
        o.fold_name,
        o.ud_sent_id as fold_sent_id
    from perseus_folds as o, unnest(o.candidate_sentence_uids) as x (sentence_uid)
    where
        {{ var('treebank_exclude_perseus_sources') }}
        and o.fold_name in (select p.fold_name from protected_folds as p)
),

text_hits as (
    select
        c.sentence_uid,
        f.fold_name,
        f.fold_sent_id,
        f.sentence_uid as fold_sentence_uid
    from candidates as c
    inner join fold_sentences as f on c.dedup_key = f.dedup_key
    where {{ var('treebank_exclude_fold_text') }} and c.dedup_key <> ''
),

text_match_rules as (
    -- the strictest form-level pairing mart_eval_fold_overlap gives for each text hit
    select
        h.sentence_uid,
        case
            when bool_or(o.forms_identical) then 'forms'
            when bool_or(o.sentence_uid is not null) then 'forms_without_punctuation'
            else 'dedup_key'
        end as match_rule
    from text_hits as h
    left join fold_overlap as o on h.sentence_uid = o.sentence_uid and h.fold_sentence_uid = o.fold_sentence_uid
    group by h.sentence_uid
),

protected_works as (
    select distinct
        f.work_id,
        f.fold_name
    from fold_sentences as f
    inner join work_folds as w on f.fold_name = w.fold_name
    where f.work_id is not null
),

work_hits as (
    select
        c.sentence_uid,
        w.fold_name,
        c.work_id
    from candidates as c
    inner join protected_works as w on c.work_id = w.work_id
    where {{ var('treebank_exclude_fold_works') }}
),

hits as (
    select
        sentence_uid,
        1 as rule_order,
        'ud_perseus_source' as rule,
        fold_name,
        fold_sent_id
    from perseus_hits
    union all
    select
        sentence_uid,
        2 as rule_order,
        'fold_text_match' as rule,
        fold_name,
        fold_sent_id
    from text_hits
    union all
    select
        sentence_uid,
        3 as rule_order,
        'fold_work' as rule,
        fold_name,
        null as fold_sent_id
    from work_hits
    union all
    select
        sentence_uid,
        4 as rule_order,
        'curation' as rule,
        null as fold_name,
        null as fold_sent_id
    from candidates
    where {{ var('treebank_curation') }} and not is_retained
    union all
    select
        sentence_uid,
        5 as rule_order,
        'no_word' as rule,
        null as fold_name,
        null as fold_sent_id
    from candidates
    where coalesce(dedup_key, '') = ''
),

ruled as (
    select
        sentence_uid,
        arg_min(rule, rule_order) as reason,
        list(distinct rule order by rule) as reasons,
        list(distinct fold_name order by fold_name) filter (where fold_name is not null) as folds,
        list(distinct fold_sent_id order by fold_sent_id) filter (where fold_sent_id is not null) as fold_sent_ids
    from hits
    group by sentence_uid
),

ranked as (
    -- the sentences no rule excludes, ranked within their dedup key (SPEC §7 priority)
    select
        c.sentence_uid,
        c.sent_id,
        row_number() over (partition by c.dedup_key order by c.priority, c.sentence_uid) as rank_in_key,
        first_value(c.sent_id) over (partition by c.dedup_key order by c.priority, c.sentence_uid) as kept_sent_id
    from candidates as c
    anti join ruled as r on c.sentence_uid = r.sentence_uid
),

excluded as (
    select
        sentence_uid,
        reason,
        reasons,
        folds,
        fold_sent_ids,
        null as kept_sent_id
    from ruled
    union all
    select
        sentence_uid,
        'duplicate' as reason,
        ['duplicate'] as reasons,
        null as folds,
        null as fold_sent_ids,
        kept_sent_id
    from ranked
    where {{ var('treebank_dedup') }} and rank_in_key > 1
),

final as (
    select
        c.sentence_uid,
        c.sent_id,
        c.project,
        c.path,
        c.upstream_sentence_id,
        e.reason,
        e.reasons,
        coalesce(e.folds, []) as folds,
        coalesce(e.fold_sent_ids, []) as fold_sent_ids,
        m.match_rule,
        case when list_contains(e.reasons, 'fold_work') then c.work_id end as work_id,
        case when list_contains(e.reasons, 'curation') then c.decision end as curation_decision,
        e.kept_sent_id,
        c.dedup_key
    from excluded as e
    inner join candidates as c on e.sentence_uid = c.sentence_uid
    left join text_match_rules as m on e.sentence_uid = m.sentence_uid
)

select * from final
order by project, sentence_uid
