-- Split words (SPEC §5.1 "Split words"): words that the source writes as pieces, to be published as
-- the one surface word that AGDT and UD Perseus write. Two sources of pieces:
-- * hyphen pieces of the AGDT-lineage XML projects: a word token ending in `-` joins the next word
--   token (`κ-` + `ἀκείνῳ`, `τ-` + `ἄλλα`), one starting with `-` joins the previous one (`οὔ` +
--   `-τε`); the surface is the pieces' forms concatenated without their joining hyphens;
-- * CoNLL-U multiword tokens (`9-10 κἀγὼ` = `καί` + `ἐγώ`): the surface is the multiword form.
-- The word keeps the annotation of one piece, the survivor: the piece that no other piece of the
-- word dominates in the source tree (the piece that heads the others, directly or through other
-- tokens); if that does not single one out, the
-- non-clitic piece: for hyphen pieces the piece without a joining hyphen, for a multiword token the
-- last piece (crasis: the host follows the proclitic `καί`); then the longer, then the first.
-- Punctuation tokens take no part. Grain: one row per piece token (sentence_uid, token_pos).
with

tokens as not materialized (
    -- read where used (a materialized copy of all 1.6M tokens costs more than the scans); the
    -- columns a piece keeps first, forms trimmed (pieces and surfaces never keep edge spaces)
    select
        project,
        sentence_uid,
        token_pos,
        src_id,
        token_num,
        head_num,
        trim(form) as form,
        is_syntactic_word,
        is_artificial,
        is_multiword
    from {{ ref('int_tokens') }}
),

morphology as (
    select
        sentence_uid,
        token_pos,
        is_punct
    from {{ ref('int_token_morphology') }}
),

hyphen_sentences as (
    -- only a sentence of an XML project with a word token that has a hyphen at an edge can hold
    -- hyphen pieces
    select distinct sentence_uid
    from tokens
    where
        is_syntactic_word and project not like 'ud\_%' escape '\'
        and (starts_with(form, '-') or ends_with(form, '-'))
),

xml_words as (
    -- word tokens of those sentences that carry a letter, in document order
    select
        t.* exclude (t.is_syntactic_word, t.is_artificial, t.is_multiword),
        lag(t.form) over (partition by t.sentence_uid order by t.token_pos) as prev_form
    from tokens as t
    semi join hyphen_sentences as h on t.sentence_uid = h.sentence_uid
    inner join morphology as m on t.sentence_uid = m.sentence_uid and t.token_pos = m.token_pos
    where
        t.is_syntactic_word and not t.is_artificial and not m.is_punct
        and t.project not like 'ud\_%' escape '\'
        and regexp_matches(t.form, '\p{L}')
),

xml_grouped as (
    select
        *,
        sum(case when ends_with(prev_form, '-') or starts_with(form, '-') then 0 else 1 end)
            over (partition by sentence_uid order by token_pos) as word_no
    from xml_words
),

xml_counted as (
    select
        *,
        count(*) over (partition by sentence_uid, word_no) as n_pieces
    from xml_grouped
),

xml_pieces as (
    -- the columns of `tokens` that a piece keeps, in their order (as mwt_pieces)
    select
        * exclude (prev_form, word_no, n_pieces),
        'hyphen' as split_kind,
        sentence_uid || ':' || word_no as word_id,
        -- a piece is a clitic when a hyphen marks its joining edge
        starts_with(form, '-') or ends_with(form, '-') as is_clitic,
        n_pieces,
        string_agg(trim(form, '-'), '') over (
            partition by sentence_uid, word_no order by token_pos
            rows between unbounded preceding and unbounded following
        ) as surface
    from xml_counted
    where n_pieces > 1
),

mwt as (
    select
        sentence_uid,
        token_pos,
        form as surface,
        try_cast(split_part(src_id, '-', 1) as integer) as first_num,
        try_cast(split_part(src_id, '-', 2) as integer) as last_num
    from tokens
    where is_multiword
),

mwt_pieces as (
    select
        t.* exclude (t.is_syntactic_word, t.is_artificial, t.is_multiword),
        'multiword_token' as split_kind,
        t.sentence_uid || ':m' || w.token_pos as word_id,
        t.token_num <> w.last_num as is_clitic,
        count(*) over (partition by t.sentence_uid, w.token_pos) as n_pieces,
        w.surface
    from mwt as w
    inner join tokens as t
        on
            w.sentence_uid = t.sentence_uid
            and t.is_syntactic_word
            and t.token_num between w.first_num and w.last_num
),

pieces as (
    select * from xml_pieces
    union all
    select * from mwt_pieces
),

piece_sentences as (
    select distinct sentence_uid from pieces
),

source_heads as (
    -- the source graph of the sentences with pieces: id -> head, a duplicated id resolved to its
    -- first token in document order (as int_tree_links does)
    select
        t.sentence_uid,
        t.token_num,
        t.head_num
    from tokens as t
    semi join piece_sentences as s on t.sentence_uid = s.sentence_uid
    where t.is_syntactic_word and t.token_num is not null
    qualify row_number() over (partition by t.sentence_uid, t.token_num order by t.token_pos) = 1
),

ancestors as (
    -- every source ancestor of every piece (walk up the heads, at most 256 steps: a source cycle
    -- ends there)
    with recursive walk (word_id, sentence_uid, start_pos, cur_num, steps) as (
        select
            word_id,
            sentence_uid,
            token_pos,
            head_num,
            1
        from pieces
        where head_num is not null and head_num <> 0
        union all
        select
            w.word_id,
            w.sentence_uid,
            w.start_pos,
            h.head_num,
            w.steps + 1
        from walk as w
        inner join source_heads as h on w.sentence_uid = h.sentence_uid and w.cur_num = h.token_num
        where h.head_num is not null and h.head_num <> 0 and w.steps < 256
    )

    select * from walk
),

headed_inside as (
    -- a piece dominated by another piece of the same word (directly or through other tokens,
    -- elliptic nodes included): it cannot be the word, or absorbing the other piece into it would
    -- make a cycle
    select distinct
        a.sentence_uid,
        a.start_pos as token_pos
    from ancestors as a
    inner join pieces as h on a.word_id = h.word_id and a.cur_num = h.token_num and a.start_pos <> h.token_pos
),

ranked as (
    select
        p.*,
        row_number() over (
            partition by p.word_id
            order by
                hi.token_pos is not null,
                p.is_clitic asc,
                length(p.form) desc,
                p.token_pos
        ) = 1 as is_survivor
    from pieces as p
    left join headed_inside as hi on p.sentence_uid = hi.sentence_uid and p.token_pos = hi.token_pos
),

final as (
    select
        project,
        sentence_uid,
        token_pos,
        src_id,
        form,
        split_kind,
        word_id,
        n_pieces,
        is_clitic,
        is_survivor,
        surface,
        max(case when is_survivor then token_pos end) over (partition by word_id) as survivor_pos,
        string_agg(src_id, '+' order by token_pos) over (
            partition by word_id order by token_pos
            rows between unbounded preceding and unbounded following
        ) as piece_src_ids
    from ranked
)

select * from final
