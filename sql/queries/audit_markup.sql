-- Markup features of every distinct audited unit (sphragis audit, SPEC §11), from its CoNLL-U
-- tokens (audit_tokens: id, upos, feats, head, deprel; never form or lemma): per token UPOS, DEPREL,
-- UPOS/DEPREL, UPOS+FEATS, each FEATS Feature=Value, UPOS bigrams and trigrams, DEPREL bigrams, the
-- signed head distance (clipped to ±8), the relation with the head's UPOS and DEPREL, the depth
-- (clipped at 12) and dependents per UPOS (clipped at 5); per sentence its length, maximum depth
-- (log2 bins) and relative root position. Grain: one row per (row_idx = unit_idx, feature) with its
-- count n.
with recursive

tok as (
    select
        unit_idx,
        s_idx,
        id,
        upos,
        feats,
        head,
        deprel
    from audit_tokens
),

linked as (
    select
        t.*,
        h.upos as head_upos,
        h.deprel as head_deprel,
        lag(t.upos) over w as prev_upos,
        lag(t.upos, 2) over w as prev2_upos,
        lead(t.upos) over w as next_upos,
        lag(t.deprel) over w as prev_deprel
    from tok as t
    left join tok as h on t.unit_idx = h.unit_idx and t.s_idx = h.s_idx and t.head = h.id
    window w as (partition by t.unit_idx, t.s_idx order by t.id)
),

depths (unit_idx, s_idx, id, depth) as (
    select
        unit_idx,
        s_idx,
        id,
        1
    from tok
    where head = 0
    union all
    select
        t.unit_idx,
        t.s_idx,
        t.id,
        d.depth + 1
    from tok as t
    inner join depths as d on t.unit_idx = d.unit_idx and t.s_idx = d.s_idx and t.head = d.id
    where d.depth < 64
),

children as (
    select
        unit_idx,
        s_idx,
        head as id,
        count(*) as n_children
    from tok
    where head > 0
    group by all
),

sentences as (
    select
        t.unit_idx,
        t.s_idx,
        count(*) as n_tokens,
        max(d.depth) as max_depth,
        min(t.id) filter (where t.head = 0) as root_id
    from tok as t
    left join depths as d on t.unit_idx = d.unit_idx and t.s_idx = d.s_idx and t.id = d.id
    group by t.unit_idx, t.s_idx
),

features as (
    select
        unit_idx,
        'u=' || upos as f
    from linked
    union all
    select
        unit_idx,
        'd=' || deprel as f
    from linked
    union all
    select
        unit_idx,
        'ud=' || upos || '/' || deprel as f
    from linked
    union all
    select
        unit_idx,
        'm=' || upos || '/' || coalesce(feats, '_') as f
    from linked
    union all
    select
        unit_idx,
        'f=' || unnest(string_split(feats, '|')) as f
    from linked
    where feats is not null
    union all
    select
        unit_idx,
        'u2=' || coalesce(prev_upos, '^') || '_' || upos as f
    from linked
    union all
    select
        unit_idx,
        'u2=' || upos || '_$' as f
    from linked
    where next_upos is null
    union all
    select
        unit_idx,
        'u3=' || coalesce(prev2_upos, '^') || '_' || coalesce(prev_upos, '^') || '_' || upos as f
    from linked
    union all
    select
        unit_idx,
        'd2=' || coalesce(prev_deprel, '^') || '_' || deprel as f
    from linked
    union all
    select
        unit_idx,
        'hd=' || case when head = 0 then 'root' else cast(greatest(-8, least(8, head - id)) as varchar) end as f
    from linked
    union all
    select
        unit_idx,
        'hu=' || deprel || '<' || coalesce(head_upos, 'ROOT') as f
    from linked
    union all
    select
        unit_idx,
        'hr=' || deprel || '<' || coalesce(head_deprel, 'ROOT') as f
    from linked
    union all
    select
        unit_idx,
        'depth=' || cast(least(depth, 12) as varchar) as f
    from depths
    union all
    select
        l.unit_idx,
        'ch=' || l.upos || ':' || cast(least(coalesce(c.n_children, 0), 5) as varchar) as f
    from linked as l
    left join children as c on l.unit_idx = c.unit_idx and l.s_idx = c.s_idx and l.id = c.id
    union all
    select
        unit_idx,
        'len=' || cast(floor(log2(n_tokens)) as varchar) as f
    from sentences
    union all
    select
        unit_idx,
        'maxdepth=' || cast(floor(log2(coalesce(max_depth, 1))) as varchar) as f
    from sentences
    union all
    select
        unit_idx,
        'rootpos=' || coalesce(cast(round(4.0 * (root_id - 1) / n_tokens) as varchar), 'none') as f
    from sentences
)

select
    unit_idx as row_idx,
    f as feature,
    count(*) as n
from features
where f is not null
group by all
