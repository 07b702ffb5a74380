-- Published dependency trees (SPEC §4–§5). Artificial (elliptic) nodes, punctuation tokens and empty
-- placeholder rows are removed; every dependent of a removed token re-attaches to its nearest
-- surviving ancestor; ill-formed source trees are repaired deterministically (duplicate ids,
-- empty or out-of-range heads, self-loops, cycles, extra roots, no root); tokens are re-indexed
-- 1..n in document order. Every change is a code in `repair`. Grain: one row per published token
-- (word token that survives); a sentence with no surviving token has no rows.
with

links as materialized (
    select * from {{ ref('int_tree_links') }}
),

relations as (
    select * from {{ ref('int_token_relations') }}
),

deprel_published as (
    select * from {{ ref('deprel_published') }}
),

climbed as (
    -- surviving tokens whose head was removed climb through removed tokens to the nearest surviving
    -- ancestor (`anc`: a position, 0 = the sentence root, NULL = a removed tree top with an
    -- unusable head, whose repair is `chain_repair`), listing the kinds of removed tokens skipped
    with recursive climb (sentence_uid, token_pos, cur_pos, skipped, chain_repair, steps) as (
        select
            s.sentence_uid,
            s.token_pos,
            s.parent,
            cast([] as varchar[]),
            cast(null as varchar),
            0
        from links as s
        inner join links as p on s.sentence_uid = p.sentence_uid and s.parent = p.token_pos
        where s.removed_kind is null and p.removed_kind is not null
        union all
        select
            c.sentence_uid,
            c.token_pos,
            p.parent,
            list_append(c.skipped, p.removed_kind),
            p.top_repair,
            c.steps + 1
        from climb as c
        inner join links as p on c.sentence_uid = p.sentence_uid and c.cur_pos = p.token_pos
        where p.removed_kind is not null and c.steps < 256
    )

    select
        sentence_uid,
        token_pos,
        arg_max_null(cur_pos, steps) as anc,
        arg_max_null(skipped, steps) as skipped,
        arg_max_null(chain_repair, steps) as chain_repair
    from climb
    group by sentence_uid, token_pos
),

survivors as materialized (
    select
        f.* exclude (top_repair, src_parent),  -- noqa: RF02
        coalesce(d.skipped, []) as skipped,
        d.chain_repair,
        case when d.token_pos is null then f.parent else d.anc end as anc,
        -- root candidates: 1 = own head 0, 2 = reaches 0 through removed tokens, 3 = unusable head
        case
            when d.token_pos is null then case when f.parent = 0 then 1 when f.parent is null then 3 end
            when d.anc = 0 then 2
            when d.anc is null then 3
        end as top_class
    from links as f
    left join climbed as d on f.sentence_uid = d.sentence_uid and f.token_pos = d.token_pos
    where f.removed_kind is null
),

main_roots as (
    -- the first candidate of the best class: the first head-0 token that survives
    select
        sentence_uid,
        min(top_class) as root_class,
        arg_min(token_pos, top_class * 100000 + token_pos) as root_pos
    from survivors
    where top_class is not null
    group by sentence_uid
),

attached as materialized (
    select
        s.*,
        s.token_pos = r.root_pos as is_root,
        case
            when s.token_pos = r.root_pos then 0
            when s.top_class is not null then r.root_pos
            else s.anc
        end as new_parent,
        row_number() over (partition by s.sentence_uid order by s.token_pos) as i,
        list_filter([
            case when s.is_duplicate_id then 'duplicate_id' end,
            s.head_repair,
            case when s.is_cycle_break then 'cycle' end,
            case when list_contains(s.skipped, 'elliptic') then 'reattached_from_elliptic' end,
            case when list_contains(s.skipped, 'punct') then 'reattached_from_punct' end,
            case when list_contains(s.skipped, 'placeholder') then 'reattached_from_placeholder' end,
            s.merge_repair,
            case when list_contains(s.skipped, 'split_piece') then 'reattached_from_split_piece' end,
            case when list_contains(s.skipped, 'no_letter') then 'reattached_from_no_letter' end,
            s.chain_repair,
            case when s.token_pos <> r.root_pos and s.top_class in (1, 2) then 'extra_root' end,
            case when s.token_pos = r.root_pos and r.root_class = 3 then 'no_root' end
        ], lambda x: x is not null) as repairs  -- noqa: RF02
    from survivors as s
    inner join main_roots as r on s.sentence_uid = r.sentence_uid
),

relabelled as (
    -- the root token is `root`; any other token whose mapped relation is `root` (an extra root
    -- attached to the main root) becomes `parataxis`
    select
        t.*,
        coalesce(h.i, 0) as head,
        case
            when t.is_root then 'root'
            when r.deprel_ud = 'root' then 'parataxis'
            else r.deprel_ud
        end as deprel_ud
    from attached as t
    left join attached as h on t.sentence_uid = h.sentence_uid and t.new_parent = h.token_pos
    inner join relations as r on t.sentence_uid = r.sentence_uid and t.token_pos = r.token_pos
),

final as (
    select
        t.project,
        t.sentence_uid,
        t.token_pos,
        t.i,
        t.head,
        t.deprel_ud,
        coalesce(p.deprel, 'dep') as deprel,
        nullif(array_to_string(t.repairs, ';'), '') as repair,
        t.src_id as src,
        t.relation as source_relation,
        t.head_src as source_head
    from relabelled as t
    left join deprel_published as p on split_part(t.deprel_ud, ':', 1) = p.deprel_ud_base
)

select * from final
