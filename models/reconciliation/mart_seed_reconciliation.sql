-- This build's sentence_1 rows against seed 000's published "Sentences per author label" table
-- per author and split, with the difference (this build minus the seed) taken apart:
--   curation_rows     candidate rows the build's registry profile adds (+) or drops (-) against
--                     the default profile (seed 000's decisions; 0 when built with the default);
--   dedup_rows        candidate rows the published-text dedup key merges that the seed's key
--                     (source spelling, letter-like elision marks kept) counted twice (negative);
--   bottleneck_rows   the 50-row cut (seed 000 "Configurations") applied to the build's
--                     candidates minus the cut applied to the counterfactual's: how the cut
--                     amplifies or absorbs the differences above;
--   overlap_rows      rows the passage-overlap rules move (SPEC §7.1; 0 with the default split
--                     profile): published minus published under seed 000's rules alone
--                     (mart_split_assignments.baseline_split);
--   missing_file_rows what remains between the counterfactual (default profile, seed key, the
--                     same cut) and the seed, for an author an upstream file missing from the
--                     mirror would have supplied (mart_missing_file_estimates);
--   unexplained_rows  that remainder for every other author.
-- diff_rows = curation_rows + dedup_rows + bottleneck_rows + overlap_rows + missing_file_rows
-- + unexplained_rows (all six 0 on a row that matches the seed)
-- (data test). Grain: one row per (author, split) over the seed's authors and the build's.
with

seed as (select * from {{ ref('seed000_author_splits') }}),

built as (select * from {{ ref('mart_author_split_counts') }}),

groups as (select * from {{ ref('int_reconciliation_groups') }}),

missing as (select * from {{ ref('mart_missing_file_estimates') }}),

profiles as (select * from {{ ref('int_registry_profiles') }}),

assignments as (select * from {{ ref('mart_split_assignments') }}),

seed_long as (
    unpivot seed
    on train, validation, test
    into name split value seed_rows
),

scenario_authors as (
    select
        scenario,
        author,
        sum(train_rows) as train_rows,
        sum(validation_rows) as validation_rows,
        sum(test_rows) as test_rows
    from groups
    group by scenario, author
),

scenario_long as (
    unpivot scenario_authors
    on train_rows as train, validation_rows as validation, test_rows as test
    into name split value candidate_rows
),

scenario_cut as (
    select
        l.scenario,
        l.author,
        l.split,
        l.candidate_rows,
        {{ bottlenecked('a.train_rows', 'a.validation_rows', 'a.test_rows', 'l.candidate_rows') }} as published_rows
    from scenario_long as l
    inner join scenario_authors as a on l.scenario = a.scenario and l.author = a.author
),

scenarios as (
    select
        author,
        split,
        sum(candidate_rows) filter (where scenario = 'build') as build_candidate_rows,
        sum(published_rows) filter (where scenario = 'build') as build_cut_rows,
        sum(candidate_rows) filter (where scenario = 'default_profile') as default_profile_candidate_rows,
        sum(candidate_rows) filter (where scenario = 'seed_key') as seed_key_candidate_rows,
        sum(published_rows) filter (where scenario = 'seed_key') as counterfactual_rows
    from scenario_cut
    group by author, split
),

build_long as (
    select
        author,
        split,
        rows as build_rows
    from built
    where track = 'main'
),

overlap_deltas as (
    select
        author,
        split,
        1 as delta
    from assignments
    where track = 'main' and split is not null
    union all
    select
        author,
        baseline_split as split,
        -1 as delta
    from assignments
    where track = 'main' and baseline_split is not null
),

overlap_moves as (
    select
        author,
        split,
        sum(delta) as overlap_rows
    from overlap_deltas
    group by author, split
),

missing_authors as (
    -- a file whose estimate is 0 (its treebank's other files show it adds nothing new) is no cause
    select distinct author
    from missing
    where coalesce(estimated_rows, 1) > 0
),

active_profile as (
    select profile
    from profiles
    where is_active
),

keys as (
    select
        author,
        split
    from seed_long
    union
    select
        author,
        split
    from build_long
),

joined as (
    select
        k.author,
        k.split,
        coalesce(s.seed_rows, 0) as seed_rows,
        coalesce(b.build_rows, 0) as build_rows,
        coalesce(c.build_candidate_rows, 0) as build_candidate_rows,
        coalesce(c.default_profile_candidate_rows, 0) as default_profile_candidate_rows,
        coalesce(c.seed_key_candidate_rows, 0) as seed_key_candidate_rows,
        coalesce(c.counterfactual_rows, 0) as counterfactual_rows,
        coalesce(c.build_cut_rows, 0) as build_recomputed_rows,
        coalesce(o.overlap_rows, 0) as overlap_rows,
        m.author is not null as has_missing_file
    from keys as k
    left join seed_long as s on k.author = s.author and k.split = s.split
    left join build_long as b on k.author = b.author and k.split = b.split
    left join scenarios as c on k.author = c.author and k.split = c.split
    left join missing_authors as m on k.author = m.author
    left join overlap_moves as o on k.author = o.author and k.split = o.split
),

decomposed as (
    select
        j.author,
        j.split,
        a.profile as registry_profile,
        j.seed_rows,
        j.build_rows,
        j.build_rows - j.seed_rows as diff_rows,
        j.build_candidate_rows,
        j.default_profile_candidate_rows,
        j.seed_key_candidate_rows,
        j.counterfactual_rows,
        j.build_recomputed_rows,
        j.build_candidate_rows - j.default_profile_candidate_rows as curation_rows,
        j.default_profile_candidate_rows - j.seed_key_candidate_rows as dedup_rows,
        (j.build_rows - j.overlap_rows - j.build_candidate_rows)
        - (j.counterfactual_rows - j.seed_key_candidate_rows) as bottleneck_rows,
        j.overlap_rows,
        case when j.has_missing_file then j.counterfactual_rows - j.seed_rows else 0 end as missing_file_rows,
        case when j.has_missing_file then 0 else j.counterfactual_rows - j.seed_rows end as unexplained_rows,
        j.build_rows = j.seed_rows as matches_seed
    from joined as j
    cross join active_profile as a
),

final as (
    -- a row that matches the seed has nothing to explain: the counterfactual (seed key) is a model
    -- of the seed's dedup that is not exact for every author (e.g. Athenaeus, Thucydides), so its
    -- terms would only cancel out there
    select
        * replace (
            case when matches_seed then 0 else curation_rows end as curation_rows,
            case when matches_seed then 0 else dedup_rows end as dedup_rows,
            case when matches_seed then 0 else bottleneck_rows end as bottleneck_rows,
            case when matches_seed then 0 else overlap_rows end as overlap_rows,
            case when matches_seed then 0 else missing_file_rows end as missing_file_rows,
            case when matches_seed then 0 else unexplained_rows end as unexplained_rows
        )
    from decomposed
)

select * from final
