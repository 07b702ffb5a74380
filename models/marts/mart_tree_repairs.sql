-- Tree repairs by kind per project (SPEC §4–§5). Four categories:
-- `repair` = published tokens carrying a repair code (a token can carry several); `removed` =
-- source word tokens left out of the published trees, by reason; `source_defect` = ill-formed
-- source heads and ids found (on any word token, published or not; `cycle` counts cycles broken);
-- `dropped_sentence` = sentences left without any published token; `check` = published trees that
-- fail int_tree_checks (one row per project, always 0 in a passing build). Grain: (project,
-- category, kind).
with

tree as (
    select * from {{ ref('int_tree_tokens') }}
),

links as (
    select * from {{ ref('int_tree_links') }}
),

sentences as (
    select * from {{ ref('int_sentences') }}
),

checks as (
    select * from {{ ref('int_tree_checks') }}
),

repair_codes as (
    select
        project,
        sentence_uid,
        unnest(string_split(repair, ';')) as kind
    from tree
    where repair is not null
),

repairs as (
    select
        project,
        'repair' as category,
        kind,
        count(*) as n_tokens,
        count(distinct sentence_uid) as n_sentences
    from repair_codes
    group by all
),

removed as (
    select
        project,
        'removed' as category,
        removed_kind as kind,
        count(*) as n_tokens,
        count(distinct sentence_uid) as n_sentences
    from links
    where removed_kind is not null
    group by all
),

defect_rows as (
    select
        project,
        sentence_uid,
        head_repair as kind
    from links
    where head_repair is not null
    union all
    select
        project,
        sentence_uid,
        'duplicate_id' as kind
    from links
    where is_duplicate_id
    union all
    select
        project,
        sentence_uid,
        'cycle' as kind
    from links
    where is_cycle_break
),

defects as (
    select
        project,
        'source_defect' as category,
        kind,
        count(*) as n_tokens,
        count(distinct sentence_uid) as n_sentences
    from defect_rows
    group by all
),

dropped as (
    select
        s.project,
        'dropped_sentence' as category,
        'no_published_token' as kind,
        sum(s.n_tokens) as n_tokens,
        count(*) as n_sentences
    from sentences as s
    anti join tree as t on s.sentence_uid = t.sentence_uid
    group by all
),

ill_formed as (
    select
        project,
        'check' as category,
        'ill_formed_published_tree' as kind,
        coalesce(sum(n_tokens) filter (
            where n_roots <> 1 or n_reached <> n_tokens or n_bad_heads > 0 or n_root_relations <> 1
        ), 0) as n_tokens,
        count(*) filter (
            where n_roots <> 1 or n_reached <> n_tokens or n_bad_heads > 0 or n_root_relations <> 1
        ) as n_sentences
    from checks
    group by project
),

final as (
    select * from repairs
    union all
    select * from removed
    union all
    select * from defects
    union all
    select * from dropped
    union all
    select * from ill_formed
)

select * from final
order by project, category, kind
