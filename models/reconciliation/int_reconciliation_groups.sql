-- Counterfactual group sizes behind mart_seed_reconciliation: per scenario, author and
-- work, the eligible sentences (SPEC §7: dedup key groups with exactly one retained author label)
-- and the main-track candidate split counts the seed 000 split rule gives them (macro
-- group_holdout). Scenarios, each one change away from the previous:
--   build            the build's registry profile and published-text dedup key (equals
--                    mart_split_assignments; data test in _reconciliation.yml);
--   default_profile  the default registry profile (seed 000's curation decisions) instead;
--   seed_key         and the dedup key computed on the source spelling of the published tokens
--                    (before elision marks are unified to U+2019; a letter-like elision mark such
--                    as U+02BC then survives "letters only", so the same sentence from two
--                    projects gets two keys): the key seed 000's deduplication evidently used.
-- A group's work is that of its highest-priority record (int_eligible_sentences' rule).
-- Grain: one row per (scenario, author, work).
with

sentences as (select * from {{ ref('int_sentences') }}),

units as (select * from {{ ref('int_units') }}),

published_tokens as (select * from {{ ref('int_published_tokens') }}),

registry as (select * from {{ ref('int_works_registry') }}),

priority as (select * from {{ ref('projects') }}),

source_keys as (
    select
        sentence_uid,
        {{ dedup_key("string_agg(coalesce(source_form, form), '' order by i)") }} as seed_key
    from published_tokens
    group by sentence_uid
),

records as (
    select
        u.sentence_uid,
        u.dedup_key,
        k.seed_key,
        r.author,
        r.work,
        r.decision = 'retained' as is_retained,
        r.default_decision = 'retained' as is_retained_by_default,
        p.priority
    from units as u
    inner join sentences as s on u.sentence_uid = s.sentence_uid
    inner join registry as r on s.project = r.project and s.document_key = r.document_key
    inner join priority as p on s.project = p.project
    inner join source_keys as k on u.sentence_uid = k.sentence_uid
    where p.in_benchmark
),

scenarios as (
    -- the scenarios of the header, by what each changes: the profile, then also the key
    select
        s.scenario,
        s.scenario_order,
        s.uses_default_profile,
        s.uses_seed_key
    from (
        values
        ('build', 1, false, false),
        ('default_profile', 2, true, false),
        ('seed_key', 3, true, true)
    ) as s (scenario, scenario_order, uses_default_profile, uses_seed_key)
),

scenario_records as (
    select
        s.scenario,
        s.scenario_order,
        if(s.uses_seed_key, r.seed_key, r.dedup_key) as group_key,
        r.author,
        r.work,
        r.priority,
        r.sentence_uid
    from records as r
    cross join scenarios as s
    where if(s.uses_default_profile, r.is_retained_by_default, r.is_retained)
),

key_groups as (
    select
        scenario,
        scenario_order,
        group_key,
        count(distinct author) as n_authors,
        any_value(author) as author,
        arg_min(work, [priority, sentence_uid]) as work
    from scenario_records
    where group_key <> ''
    group by scenario, scenario_order, group_key
),

work_groups as (
    select
        scenario,
        scenario_order,
        author,
        work,
        count(*) as eligible_rows
    from key_groups
    where n_authors = 1
    group by scenario, scenario_order, author, work
),

final as (
    select
        scenario,
        scenario_order,
        author,
        work,
        eligible_rows,
        {{ group_holdout('eligible_rows') }} as validation_rows,
        {{ group_holdout('eligible_rows') }} as test_rows,
        eligible_rows - 2 * {{ group_holdout('eligible_rows') }} as train_rows
    from work_groups
)

select * from final
