-- Well-formedness of every published tree (SPEC §4, §10): per sentence, the number of tokens, of
-- head-0 tokens, of `root` relations, of heads outside 0..n or pointing at the token itself, and
-- of tokens reachable top-down from the root (fewer than n means a cycle). The data tests on this
-- model fail the build on any ill-formed tree. Grain: one row per sentence with published tokens.
with

tree as (
    select * from {{ ref('int_tree_tokens') }}
),

sizes as (
    select
        sentence_uid,
        count(*) as n_tokens
    from tree
    group by sentence_uid
),

reached as (
    -- top-down from the head-0 token(s); a token on a cycle is never reached
    with recursive reach (sentence_uid, i, depth) as (
        select
            sentence_uid,
            i,
            0
        from tree
        where head = 0
        union all
        select
            c.sentence_uid,
            c.i,
            r.depth + 1
        from reach as r
        inner join tree as c on r.sentence_uid = c.sentence_uid and r.i = c.head
        where r.depth < {{ var('max_tree_depth') }}
    )

    select
        sentence_uid,
        count(distinct i) as n_reached,
        max(depth) as max_depth
    from reach
    group by sentence_uid
),

per_sentence as (
    select
        t.sentence_uid,
        any_value(t.project) as project,
        s.n_tokens,
        min(t.i) as min_i,
        max(t.i) as max_i,
        count(distinct t.i) as n_distinct_i,
        count(*) filter (where t.head = 0) as n_roots,
        count(*) filter (where t.deprel_ud = 'root') as n_root_relations,
        count(*) filter (where t.head = 0 and t.deprel = 'root' and t.deprel_ud = 'root') as n_roots_labelled_root,
        count(*) filter (where t.head < 0 or t.head > s.n_tokens or t.head = t.i) as n_bad_heads
    from tree as t
    inner join sizes as s on t.sentence_uid = s.sentence_uid
    group by t.sentence_uid, s.n_tokens
),

final as (
    select
        p.*,
        coalesce(r.n_reached, 0) as n_reached,
        r.max_depth
    from per_sentence as p
    left join reached as r on p.sentence_uid = r.sentence_uid
)

select * from final
