-- The source dependency graph of every word token, checked and with its cycles broken (SPEC §4):
-- what removes the token from the published tree (`removed_kind`), the source parent it names
-- (`src_parent`), the head defect found (`head_repair`), whether the token was renumbered as a
-- duplicate id or cut to break a cycle, and the parent the published tree starts from (`parent`:
-- a position, 0 = root, NULL = unusable head). Grain: one row per word token.
with

tokens as (
    select * from {{ ref('int_tokens') }}
    where is_syntactic_word
),

punct_tokens as (
    -- the punctuation tokens and the tokens left without a letter: joins to these small sets cost
    -- less than joins to every token's morphology and form
    select
        sentence_uid,
        token_pos
    from {{ ref('int_token_morphology') }}
    where is_punct
),

split_words as (
    select * from {{ ref('int_split_words') }}
),

letterless_tokens as (
    select
        sentence_uid,
        token_pos
    from {{ ref('int_token_forms') }}
    where not has_letter
),

classified as materialized (
    -- what removes a token; ids and heads are matched as integers (a non-integer head is unusable:
    -- `empty_head` when blank or `""`, else `head_out_of_range`; a non-integer id is never a head)
    select
        t.project,
        t.sentence_uid,
        t.token_pos,
        t.src_id,
        t.token_num,
        t.head_src,
        t.head_num,
        t.relation,
        case
            when t.is_artificial then 'elliptic'
            when not {{ project_in('t.project', format='conllu') }} and regexp_full_match(t.form, '\[[0-9]+\]')
                then 'elliptic'
            -- SPEC §5.1: a piece absorbed into its split word (an elision mark too, though tagged
            -- as punctuation), a token left without a letter
            when not sw.is_survivor then 'split_piece'
            when p.token_pos is not null then 'punct'
            when nullif(trim(t.form), '') is null then 'placeholder'
            when t.form = 'DEL' and t.postag is null and t.relation is null then 'placeholder'
            when nl.token_pos is not null then 'no_letter'
        end as removed_kind,
        case when not sw.is_survivor and sw.merges_dependents then sw.survivor_pos end as merged_into,
        case when sw.is_survivor then sw.merge_repair end as merge_repair,
        coalesce(nullif(trim(t.head_src, ' "'), '') is null, true) as is_blank_head
    from tokens as t
    left join punct_tokens as p on t.sentence_uid = p.sentence_uid and t.token_pos = p.token_pos
    left join letterless_tokens as nl on t.sentence_uid = nl.sentence_uid and t.token_pos = nl.token_pos
    left join split_words as sw on t.sentence_uid = sw.sentence_uid and t.token_pos = sw.token_pos
),

id_index as materialized (
    -- a head names the first token (document order) bearing that id; later duplicates are renumbered
    select
        sentence_uid,
        token_num,
        min(token_pos) as target_pos
    from classified
    where token_num is not null
    group by sentence_uid, token_num
),

linked as materialized (
    -- the source parent (0 = root, NULL = unusable head) and the head repair
    select
        c.*,
        coalesce(x.target_pos <> c.token_pos, false) as is_duplicate_id,
        case
            when c.head_num = 0 then 0
            when h.target_pos <> c.token_pos then h.target_pos
        end as src_parent,
        case
            when c.head_num = 0 then null
            when c.is_blank_head then 'empty_head'
            when h.target_pos is null then 'head_out_of_range'
            when h.target_pos = c.token_pos then 'self_loop'
        end as head_repair
    from classified as c
    left join id_index as x on c.sentence_uid = x.sentence_uid and c.token_num = x.token_num
    left join id_index as h on c.sentence_uid = h.sentence_uid and c.head_num = h.token_num and c.head_num <> 0
),

reachable as (
    -- top-down from every tree top (parent 0 or unusable): a token never reached sits on a cycle or
    -- hangs below one
    with recursive reach (sentence_uid, token_pos) as (
        select
            sentence_uid,
            token_pos
        from linked
        where src_parent is null or src_parent = 0
        union all
        select
            c.sentence_uid,
            c.token_pos
        from reach as r
        inner join linked as c on r.sentence_uid = c.sentence_uid and r.token_pos = c.src_parent
    )

    select * from reach
),

-- (read by cycle_jumps, whose USING KEY sqlfluff cannot parse: hence the noqa)
unreached as materialized (  -- noqa: ST03
    select
        l.sentence_uid,
        l.token_pos,
        l.src_parent,
        count(*) over (partition by l.sentence_uid) as n_unreached
    from linked as l
    anti join reachable as r on l.sentence_uid = r.sentence_uid and l.token_pos = r.token_pos
),

cycle_jumps as (
    -- pointer doubling over the unreached tokens (each one's parent is unreached too): after k
    -- rounds `anc` is the token 2^k steps up and `min_pos` the smallest position on those 2^k
    -- steps; rounds stop once 2^k >= n_unreached, so `anc` is on a cycle and its `min_pos` covers
    -- that whole cycle (log2 rounds over the unreached tokens, not a walk from each of them)
    with recursive jump (sentence_uid, token_pos, anc, min_pos, rounds, n_unreached)  -- noqa: PRS
    using key (sentence_uid, token_pos) as (
        select
            sentence_uid,
            token_pos,
            src_parent,
            token_pos,
            0,
            n_unreached
        from unreached
        union
        select
            j.sentence_uid,
            j.token_pos,
            a.anc,
            least(j.min_pos, a.min_pos),
            j.rounds + 1,
            j.n_unreached
        from jump as j
        inner join recurring.jump as a on j.sentence_uid = a.sentence_uid and j.anc = a.token_pos
        where pow(2, j.rounds) < j.n_unreached
    )

    select * from jump
),

cycle_breakers as (
    -- a cycle is broken at its member with the smallest position: the `min_pos` of the cycle
    -- member every unreached token's `anc` is
    select distinct
        c.sentence_uid,
        c.min_pos as token_pos
    from cycle_jumps as j
    inner join cycle_jumps as c on j.sentence_uid = c.sentence_uid and j.anc = c.token_pos
),

fixed as (
    select
        l.*,
        b.token_pos is not null as is_cycle_break,
        -- SPEC §5.1: an absorbed split-word piece hangs from its word (the survivor, which the piece
        -- never dominates: int_split_words), so its dependents re-attach there
        case
            when l.merged_into is not null then l.merged_into
            when b.token_pos is null then l.src_parent
        end as parent,
        -- the source tree's parent after the cycle repair, split pieces included (native view)
        case when b.token_pos is null then l.src_parent end as native_parent,
        case
            when l.merged_into is not null then null
            when b.token_pos is not null then 'cycle'
            else l.head_repair
        end as top_repair
    from linked as l
    left join cycle_breakers as b on l.sentence_uid = b.sentence_uid and l.token_pos = b.token_pos
),

final as (
    select
        project,
        sentence_uid,
        token_pos,
        src_id,
        head_src,
        relation,
        removed_kind,
        merge_repair,
        is_duplicate_id,
        head_repair,
        is_cycle_break,
        src_parent,
        merged_into,
        parent,
        native_parent,
        top_repair
    from fixed
)

select * from final
