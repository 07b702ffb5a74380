{#- The repaired dependency trees of SPEC §4 (int_tree_tokens, int_native_tree_tokens). -#}

{%- macro repaired_tree(keep_punct=false) -%}
{#- Elliptic and placeholder tokens (and, unless keep_punct, punctuation tokens) of
    int_tree_links are removed; each dependent of a removed token re-attaches to its nearest
    surviving ancestor; tree tops attach to the main root (the first head-0 token that is not
    punctuation); tokens are re-indexed 1..n. Every change is a code in `repair`. See
    int_tree_tokens.sql and int_native_tree_tokens.sql for the grain and columns. -#}
with
{%- if keep_punct %}

blank_forms as (
    -- the few word tokens without a visible form (a join to this small set, not to all tokens)
    select
        sentence_uid,
        token_pos
    from {{ ref('int_tokens') }}
    where is_syntactic_word and nullif(trim(form), '') is null
),
{%- endif %}

links as materialized (
    {%- if keep_punct %}
    -- punctuation tokens stay in the tree (native view): only elliptic and placeholder tokens go,
    -- and a punctuation token without a visible form is a placeholder
    -- the source tokenization is kept too: split-word pieces and letterless tokens (SPEC §5.1) stay,
    -- with their source parents
    select
        l.* replace (
            case
                when l.removed_kind in ('split_piece', 'no_letter') then null
                when l.removed_kind <> 'punct' then l.removed_kind
                when b.token_pos is not null then 'placeholder'
            end as removed_kind,
            l.native_parent as parent,
            cast(null as varchar) as merge_repair
        ),
        coalesce(l.removed_kind = 'punct' and b.token_pos is null, false) as is_punct_token
    from {{ ref('int_tree_links') }} as l
    left join blank_forms as b on l.sentence_uid = b.sentence_uid and l.token_pos = b.token_pos
    {%- else %}
    select
        *,
        false as is_punct_token
    from {{ ref('int_tree_links') }}
    {%- endif %}
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
        f.* exclude (top_repair, src_parent, native_parent, merged_into),  -- noqa: RF02
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
    -- the first candidate of the best class: the first head-0 token that survives (a kept
    -- punctuation token only when no word token is a candidate, SPEC §4)
    select
        sentence_uid,
        arg_min(top_class, (is_punct_token::integer * 10 + top_class) * 100000 + token_pos) as root_class,
        arg_min(token_pos, (is_punct_token::integer * 10 + top_class) * 100000 + token_pos) as root_pos
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
{%- endmacro %}
