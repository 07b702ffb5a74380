-- Every row of the SPEC §3 tag mapping tables (seeds) with the number of word tokens it applied
-- to, overall and per project, so the rules can be browsed and audited in the warehouse
-- (SPEC §3). Grain: one row per (mapping_table, row_key).
--   agdt_tag_positions      tokens whose normalized tag has `code` at `position`
--   upos_from_tag           tokens whose normalized tag starts with `code`
--   ud_upos_to_tag          UD PROIEL/PTNK tokens whose POS code this row chose
--   ud_feats_to_tag         UD PROIEL/PTNK tokens whose source FEATS carry feature=value
--   ud_tense_aspect_to_tag  UD PROIEL/PTNK tokens whose source Tense/Aspect pair is this row's
--   feats_published_types   tokens whose published FEATS carry the feature
--   tag_rules               tokens whose tag_rule is (or, combined with '+', includes) the rule
{#- projects whose tag is derived from UPOS+FEATS (project registry, tag_source) -#}
{%- set from_ud = "('" ~ (var('projects') | selectattr('tag_source', 'equalto', 'upos_feats') | map(attribute='project') | join("', '")) ~ "')" %}
with

morphology as (select * from {{ ref('int_token_morphology') }}),

tag_positions as (select * from {{ ref('agdt_tag_positions') }}),

upos_from_tag as (select * from {{ ref('upos_from_tag') }}),

ud_upos_to_tag as (select * from {{ ref('ud_upos_to_tag') }}),

ud_feats_to_tag as (select * from {{ ref('ud_feats_to_tag') }}),

ud_tense_aspect_to_tag as (select * from {{ ref('ud_tense_aspect_to_tag') }}),

published_types as (select * from {{ ref('feats_published_types') }}),

tag_rules as (select * from {{ ref('tag_rules') }}),

-- the distinct analyses with their token counts: every count below starts from here
analyses as (
    select
        project,
        tag,
        tag_rule,
        upos_source,
        feats_source,
        feats,
        count(*) as tokens
    from morphology
    group by all
),

ud_analyses as (
    select *
    from analyses
    where project in {{ from_ud }} and upos_source is not null
),

ud_upos_applied as (
    -- the ud_upos_to_tag row the model applied: a matching conditional (article) row before the
    -- plain row of the same UPOS
    select
        a.*,
        m.upos as rule_upos,
        m.condition as rule_condition
    from ud_analyses as a
    inner join ud_upos_to_tag as m
        on
            a.upos_source = m.upos
            and (m.condition is null or contains('|' || coalesce(a.feats_source, '') || '|', '|' || m.condition || '|'))
    qualify row_number() over (
        partition by a.project, a.tag, a.tag_rule, a.upos_source, a.feats_source, a.feats
        order by m.condition is null, m.condition
    ) = 1
),

applied as (
    select
        'agdt_tag_positions' as mapping_table,
        m.position || ':' || m.code || ':' || coalesce(m.feature, '') as row_key,
        'tag[' || m.position || '] (' || m.position_name || ') = ' || m.code || ' (' || m.code_label || ')' as input,
        coalesce(m.feature || '=' || m.value, '(none)') as output,
        a.project,
        a.tokens
    from tag_positions as m
    left join analyses as a on substr(a.tag, m.position, 1) = m.code
    union all
    select
        'upos_from_tag' as mapping_table,
        m.code as row_key,
        'tag[1] (pos) = ' || m.code || ' (' || m.code_label || ')' as input,
        m.upos as output,
        a.project,
        a.tokens
    from upos_from_tag as m
    left join analyses as a on substr(a.tag, 1, 1) = m.code
    union all
    select
        'ud_upos_to_tag' as mapping_table,
        m.upos || ':' || coalesce(m.condition, '') as row_key,
        'UPOS=' || m.upos || coalesce(' with ' || m.condition, '') as input,
        'tag[1] = ' || m.code || ' → ' || m.published_upos as output,
        a.project,
        a.tokens
    from ud_upos_to_tag as m
    left join ud_upos_applied as a
        on
            m.upos = a.rule_upos
            and m.condition is not distinct from a.rule_condition
    union all
    select
        'ud_feats_to_tag' as mapping_table,
        m.feature || '=' || m.value as row_key,
        m.feature || '=' || m.value as input,
        'tag[' || m.position || '] = ' || m.code as output,
        a.project,
        a.tokens
    from ud_feats_to_tag as m
    left join ud_analyses as a
        on contains('|' || coalesce(a.feats_source, '') || '|', '|' || m.feature || '=' || m.value || '|')
    union all
    select
        'ud_tense_aspect_to_tag' as mapping_table,
        coalesce(m.tense, '') || ':' || coalesce(m.aspect, '') as row_key,
        concat_ws('|', 'Aspect=' || m.aspect, 'Tense=' || m.tense) as input,
        'tag[4] = ' || m.code as output,
        a.project,
        a.tokens
    from ud_tense_aspect_to_tag as m
    left join ud_analyses as a
        on
            coalesce(m.tense, '') = regexp_extract(a.feats_source, '(?:^|\|)Tense=([^|]*)', 1)
            and coalesce(m.aspect, '') = regexp_extract(a.feats_source, '(?:^|\|)Aspect=([^|]*)', 1)
    union all
    select
        'feats_published_types' as mapping_table,
        m.feature as row_key,
        m.feature as input,
        'published' as output,
        a.project,
        a.tokens
    from published_types as m
    left join analyses as a on contains('|' || coalesce(a.feats, '') || '|', '|' || m.feature || '=')
    union all
    select
        'tag_rules' as mapping_table,
        m.tag_rule as row_key,
        m.tag_rule as input,
        m.outcome as output,
        a.project,
        a.tokens
    from tag_rules as m
    left join analyses as a on list_contains(string_split(a.tag_rule, '+'), m.tag_rule)
),

per_project as (
    select
        mapping_table,
        row_key,
        input,
        output,
        project,
        sum(tokens) as tokens
    from applied
    group by all
),

final as (
    select
        mapping_table,
        row_key,
        input,
        output,
        coalesce(sum(tokens), 0) as tokens,
        coalesce(
            map_from_entries(list(struct_pack(k := project, v := tokens) order by project) filter (where project is not null)),
            map()
        ) as tokens_by_project
    from per_project
    group by mapping_table, row_key, input, output
)

select * from final
order by mapping_table, row_key
