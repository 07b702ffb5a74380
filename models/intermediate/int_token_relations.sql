-- Pre-merge UD v2 relation of every word token (SPEC §4). Native AGDT-lineage labels (AGDT, Gorman,
-- Pedalion, Harrington) are mapped through the checked-in seed `relation_map` (one row per observed
-- label, POS-dependent choices as columns); UD projects keep their own DEPREL. Coordinators (COORD)
-- and apposition heads (APOS) take the relation of their members. Grain: one row per word token.
with

tokens as (
    select * from {{ ref('int_tokens') }}
    where is_syntactic_word
),

morphology as (
    select
        sentence_uid,
        token_pos,
        tag,
        is_punct
    from {{ ref('int_token_morphology') }}
),

relation_map as (
    select
        label,
        nullif(base_label, '') as base_label,
        nullif(suffix, '') as suffix,
        nullif(takes_members, '') as takes_members,
        ud_default,
        nullif(ud_at_root, '') as ud_at_root,
        nullif(ud_if_article, '') as ud_if_article,
        nullif(ud_if_adj, '') as ud_if_adj,
        nullif(ud_if_verb_fin_inf, '') as ud_if_verb_fin_inf,
        nullif(ud_if_verb, '') as ud_if_verb,
        nullif(ud_if_adverb, '') as ud_if_adverb,
        nullif(ud_if_nominal, '') as ud_if_nominal
    from {{ ref('relation_map') }}
),

native as (
    -- native tokens with their map row and POS class (from the normalized tag)
    select
        t.project,
        t.sentence_uid,
        t.token_pos,
        t.relation,
        t.head_num,
        t.token_num,
        mo.is_punct,
        coalesce(t.relation, '(empty)') as label,
        m.label is not null as is_mapped,
        m.base_label,
        m.suffix,
        m.takes_members,
        m.ud_default,
        m.ud_at_root,
        case
            when mo.tag[1] = 'l' then 'article'
            when mo.tag[1] = 'a' then 'adj'
            when mo.tag[1] in ('v', 't') and mo.tag[5] in ('i', 's', 'o', 'm', 'n') then 'verb_fin_inf'
            when mo.tag[1] in ('v', 't') then 'verb'
            when mo.tag[1] in ('d', 'g', 'c', 'b', 'i', 'e', 'r') then 'adverb'
            when mo.tag[1] in ('n', 'p', 'm') then 'nominal'
        end as pos_class,
        m.ud_if_article,
        m.ud_if_adj,
        m.ud_if_verb_fin_inf,
        m.ud_if_verb,
        m.ud_if_adverb,
        m.ud_if_nominal
    from tokens as t
    inner join morphology as mo on t.sentence_uid = mo.sentence_uid and t.token_pos = mo.token_pos
    left join relation_map as m on coalesce(t.relation, '(empty)') = m.label
    where not {{ project_in('t.project', syntax_scheme='UD') }}
),

with_pos_relation as (
    -- the POS-dependent column of the token's POS class (NULL when empty: the default applies)
    select
        * exclude (ud_if_article, ud_if_adj, ud_if_verb_fin_inf, ud_if_verb, ud_if_adverb, ud_if_nominal),
        case pos_class
            when 'article' then ud_if_article
            when 'adj' then ud_if_adj
            when 'verb_fin_inf' then ud_if_verb_fin_inf
            when 'verb' then ud_if_verb
            when 'adverb' then ud_if_adverb
            when 'nominal' then ud_if_nominal
        end as pos_relation
    from native
),

id_index as (
    -- from the native tokens themselves, so that `native` is read once (and not materialized)
    select
        sentence_uid,
        token_num,
        min(token_pos) as token_pos
    from tokens
    where token_num is not null and not {{ project_in('project', syntax_scheme='UD') }}
    group by sentence_uid, token_num
),

native_linked as (
    -- function_relation: what the token's own function label gives in its position (suffix
    -- ignored); member_relation: the same without the at-root rule, used when the token is a
    -- terminal member of a coordination/apposition
    select
        n.*,
        x.token_pos as parent_pos,
        case
            when not n.is_mapped then 'dep'
            when n.head_num = 0 and n.ud_at_root is not null then n.ud_at_root
            else coalesce(n.pos_relation, n.ud_default)
        end as function_relation,
        case
            when not n.is_mapped then 'unmapped'
            when n.head_num = 0 and n.ud_at_root is not null then 'at_root'
            when n.pos_relation is not null then 'pos_' || n.pos_class
            else 'default'
        end as function_branch,
        coalesce(n.pos_relation, n.ud_default, 'dep') as member_relation
    from with_pos_relation as n
    left join id_index as x on n.sentence_uid = x.sentence_uid and n.head_num = x.token_num and n.head_num <> 0
),

member_walk as (
    -- descend from every coordinator/apposition head to its terminal members: children bearing the
    -- wanted suffix (_CO for COORD, _AP for APOS), seen through AuxP/AuxC and through nested
    -- coordinators; an AuxP/AuxC that itself bears the suffix passes it on to its non-Aux children
    with recursive descent (sentence_uid, coord_pos, node_pos, want, carried, is_terminal, depth) as (
        select
            sentence_uid,
            token_pos as coord_pos,
            token_pos as node_pos,
            takes_members as want,
            false as carried,
            false as is_terminal,
            0 as depth
        from native_linked
        where takes_members is not null
        union all
        select
            w.sentence_uid,
            w.coord_pos,
            k.token_pos,
            coalesce(k.takes_members, w.want),
            coalesce(k.base_label in ('AuxP', 'AuxC') and (w.carried or k.suffix = w.want), false),
            coalesce(k.base_label, '') not in ('AuxP', 'AuxC') and k.takes_members is null,
            w.depth + 1
        from descent as w
        inner join native_linked as k on w.sentence_uid = k.sentence_uid and w.node_pos = k.parent_pos
        where
            not w.is_terminal
            and w.depth < 64
            and (
                k.base_label in ('AuxP', 'AuxC')
                or k.suffix = w.want
                or (w.carried and not coalesce(k.base_label like 'Aux%', false))
            )
    )

    select * from descent
),

coordinators as (
    select
        w.sentence_uid,
        w.coord_pos,
        count(*) as n_members,
        count(distinct m.member_relation) as n_relations,
        min(m.member_relation) as member_relation,
        count(distinct m.base_label) as n_bases,
        min(m.ud_default) as base_default,
        bool_and(coalesce(m.ud_at_root = 'root', false)) as all_root_capable
    from member_walk as w
    inner join native_linked as m on w.sentence_uid = m.sentence_uid and w.node_pos = m.token_pos
    where w.is_terminal
    group by all
),

native_mapped as (
    select
        n.project,
        n.sentence_uid,
        n.token_pos,
        n.relation as source_relation,
        case when n.is_mapped then n.label end as relation_rule,
        case
            when n.is_punct then 'punct'
            when not n.is_mapped then 'dep'
            when n.ud_default = 'punct' then 'punct'
            when n.suffix = 'CO' then 'conj'
            when n.suffix = 'AP' then 'appos'
            when n.takes_members is null then n.function_relation
            when c.n_members is null then n.ud_default
            when n.head_num = 0 and c.all_root_capable then 'root'
            when c.n_relations = 1 then c.member_relation
            when c.n_bases = 1 then c.base_default
            else n.ud_default
        end as deprel_ud,
        case
            when n.is_punct then 'punct_tag'
            when not n.is_mapped then 'unmapped'
            when n.ud_default = 'punct' then 'default'
            when n.suffix is not null then 'suffix'
            when n.takes_members is null then n.function_branch
            when c.n_members is null then 'members_none'
            when n.head_num = 0 and c.all_root_capable then 'members_at_root'
            when c.n_relations = 1 then 'members'
            when c.n_bases = 1 then 'members_base_default'
            else 'members_disagree'
        end as rule_branch
    from native_linked as n
    left join coordinators as c on n.sentence_uid = c.sentence_uid and n.token_pos = c.coord_pos
),

ud as (
    select
        project,
        sentence_uid,
        token_pos,
        relation as source_relation,
        cast(null as varchar) as relation_rule,
        coalesce(relation, 'dep') as deprel_ud,
        'ud_native' as rule_branch
    from tokens
    where {{ project_in('project', syntax_scheme='UD') }}
),

final as (
    select * from native_mapped
    union all
    select * from ud
)

select * from final
