-- Split words (SPEC §5.1 "Split words"): words that the source writes as pieces, to be published as
-- the one surface word that AGDT and UD Perseus write. Two sources of pieces:
-- * hyphen pieces of the AGDT-lineage XML projects: a word token ending in `-` joins the next word
--   token (`κ-` + `ἀκείνῳ`, `τ-` + `ἄλλα`), one starting with `-` joins the previous one (`οὔ` +
--   `-τε`); the surface is the pieces' forms concatenated without their joining hyphens;
-- * CoNLL-U multiword tokens (`9-10 κἀγὼ` = `καί` + `ἐγώ`): the surface is the multiword form;
-- * a token that is only an elision or prodelision mark (characters of seed elision_marks, bare or
--   combining) and the word it belongs to: the word before (elision: `ἀλλ` + `᾽`) or after
--   (prodelision: `̓` + `κ`), which takes the mark as U+2019 (see `mark_pieces` for how a mark is told
--   from a quotation mark).
-- The surface of hyphen pieces (`resolution`) is, in this order: the crasis word that seed
-- crasis_forms names for the two pieces (`crasis_table`: `τ-` + `ἐναντία` → `τἀναντία`); the pieces
-- concatenated when some project writes that concatenation as an unsplit word (`source_surface`,
-- int_source_lexicon: `οὔ` + `-τε` → `οὔτε`); else the pieces are never glued: the longer piece
-- keeps its own form and annotation and the other is dropped (`longer_piece`; its dependents
-- re-attach to its nearest surviving ancestor), with the reason in the survivor's repair.
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
        is_punct,
        lemma,
        tag
    from {{ ref('int_token_morphology') }}
),

lexicon as (
    select distinct form_key from {{ ref('int_source_lexicon') }}
),

crasis_forms as (
    -- keyed by the pieces' published spelling (two spellings of one pair: the surface written most often)
    select
        surface,
        {{ lexicon_key('piece_1') }} as key_1,  -- noqa: PRS
        {{ lexicon_key('piece_2') }} as key_2  -- noqa: PRS
    from {{ ref('crasis_forms') }}
    qualify row_number() over (partition by key_1, key_2 order by surface_tokens desc, surface asc) = 1
),

elision_marks as ({{ seed_elision_marks() }}),

hyphen_sentences as (
    -- only a sentence of an XML project with a word token that has a hyphen at an edge can hold
    -- hyphen pieces
    select distinct sentence_uid
    from tokens
    where
        is_syntactic_word and not {{ project_in('project', format='conllu') }}
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
        and not {{ project_in('t.project', format='conllu') }}
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

mark_tokens as (
    -- word tokens that are only elision marks (every character one of seed elision_marks)
    select
        t.sentence_uid,
        t.token_pos
    from tokens as t
    cross join elision_marks as e  -- noqa: AL05
    where
        t.is_syntactic_word and not t.is_artificial and t.form <> ''
        and len(list_filter(string_split(t.form, ''), lambda c: not list_contains(e.marks, c))) = 0  -- noqa: PRS, LT02, RF02
),

mark_neighbours as (
    -- each mark with the word tokens right before and after it (any token: punctuation between a
    -- mark and a word means the mark is not that word's)
    select
        m.sentence_uid,
        m.token_pos as mark_pos,
        p.token_pos as prev_pos,
        p.form as prev_form,
        n.token_pos as next_pos,
        n.form as next_form,
        nm.lemma as next_lemma,
        nm.tag as next_tag
    from mark_tokens as m
    left join tokens as p on m.sentence_uid = p.sentence_uid and p.is_syntactic_word and p.token_pos = m.token_pos - 1
    left join tokens as n on m.sentence_uid = n.sentence_uid and n.is_syntactic_word and n.token_pos = m.token_pos + 1
    left join morphology as nm on n.sentence_uid = nm.sentence_uid and n.token_pos = nm.token_pos
),

mark_roles as (
    -- SPEC §5.1 apostrophes, told from quotation marks by position and neighbours:
    -- * elision (the mark belongs to the word before): that word ends in a letter and either in a
    --   consonant no unelided Greek word ends in (β γ δ θ κ λ μ π τ φ χ; not ἐκ, οὐκ, οὐχ) or, with
    --   U+2019 appended, is a word the sources write (int_source_lexicon: `οἷ’`, `Δί’`);
    -- * prodelision (the mark belongs to the word after): not an elision, the word after starts
    --   with a letter that carries no breathing although its lemma starts with a vowel (it lost
    --   that vowel: `’κ` of ἐκ, `’γώ` of ἐγώ; not the article or οὗτος, whose forms start with τ)
    --   or although it is a past indicative (it lost its augment: `’τίμησα`), and the word
    --   before, if any, ends in a vowel (prodelision follows a long vowel).
    -- Anything else (after a word ending in ν ρ ς or a vowel, before a word with its breathing, or
    -- next to punctuation) is a quotation mark and is removed as punctuation.
    select
        *,
        coalesce(
            regexp_matches(prev_form, '\p{L}\p{M}*$')
            and (
                (
                    regexp_matches({{ letters_key('prev_form') }}, '[βγδθκλμπτφχ]$')
                    and {{ letters_key('prev_form') }} not in ('εκ', 'ουκ', 'ουχ')
                )
                or {{ lexicon_key("prev_form || chr(8217)") }} in (select l.form_key from lexicon as l)  -- noqa: PRS
            ),
            false
        ) as is_elision,
        coalesce(
            regexp_matches(next_form, '^\p{L}')
            -- no breathing on its first two letters (a word-initial diphthong carries it on the second)
            and not regexp_matches(nfd(next_form), '^\p{L}[^\p{L}]*(?:\p{L}[^\p{L}]*)?[\x{0313}\x{0314}]')
            and (
                (
                    regexp_matches({{ letters_key('next_lemma') }}, '^[αεηιουω]')
                    and {{ letters_key('next_lemma') }} not in ('ο', 'ουτοσ')
                )
                -- or a past indicative that lost its augment ἐ- (`’τίμησα`, `’δόκουν`)
                -- (after a long vowel or diphthong: Homer's unaugmented verbs follow his quotation
                -- marks, and Pedalion's δικτάτωρι ̓ κατέλιπεν is no prodelision)
                or (
                    regexp_matches({{ letters_key('prev_form') }}, '(?:[ηω]|[αεο][ιυ]|ου)$')
                    and starts_with(next_tag, 'v') and substr(next_tag, 5, 1) = 'i' and substr(next_tag, 4, 1) in ('i', 'a', 'l')
                )
            )
            and (prev_form is null or regexp_matches({{ letters_key('prev_form') }}, '[αεηιουω]$')),
            false
        ) as is_prodelision
    from mark_neighbours
),

mark_words as (
    -- one mark per word (the first), the word not itself a hyphen piece
    select
        r.sentence_uid,
        r.mark_pos,
        case when r.is_elision then r.prev_pos else r.next_pos end as host_pos,
        case when r.is_elision then 'elision_mark' else 'prodelision_mark' end as split_kind
    from mark_roles as r
    where
        (r.is_elision or r.is_prodelision)
        and not exists (
            select 1 from xml_pieces as x
            where
                x.sentence_uid = r.sentence_uid
                and x.token_pos = case when r.is_elision then r.prev_pos else r.next_pos end
        )
    qualify
        row_number() over (
            partition by r.sentence_uid, case when r.is_elision then r.prev_pos else r.next_pos end
            order by r.mark_pos
        ) = 1
),

mark_pieces as (
    select
        t.* exclude (t.is_syntactic_word, t.is_artificial, t.is_multiword),
        w.split_kind,
        w.sentence_uid || ':e' || w.mark_pos as word_id,
        t.token_pos = w.mark_pos as is_clitic,
        2 as n_pieces,
        case
            when w.split_kind = 'elision_mark' then h.form || chr(8217)
            else chr(8217) || h.form
        end as surface
    from mark_words as w
    inner join tokens as t
        on w.sentence_uid = t.sentence_uid and t.token_pos in (w.mark_pos, w.host_pos)
    inner join tokens as h on w.sentence_uid = h.sentence_uid and w.host_pos = h.token_pos
),

pieces as (
    select * from xml_pieces
    union all
    select * from mwt_pieces
    union all
    select * from mark_pieces
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

hyphen_words as (
    -- the surface of each hyphen word: the crasis table's word, the pieces' concatenation when the
    -- sources write it unsplit, else none (the longer piece is kept)
    select
        w.word_id,
        w.surface as concatenation,
        c.surface as crasis_surface,
        {{ lexicon_key('w.surface') }} in (select l.form_key from lexicon as l) as is_attested  -- noqa: PRS
    from (
        select
            word_id,
            any_value(surface) as surface,
            any_value(n_pieces) as n_pieces,
            {{ lexicon_key("min_by(form, token_pos)") }} as key_1,  -- noqa: PRS
            {{ lexicon_key("max_by(form, token_pos)") }} as key_2  -- noqa: PRS
        from xml_pieces
        group by word_id
    ) as w
    left join crasis_forms as c on w.n_pieces = 2 and w.key_1 = c.key_1 and w.key_2 = c.key_2
),

resolved as (
    select
        p.* exclude (p.surface),
        case
            when p.split_kind <> 'hyphen' then p.split_kind
            when h.crasis_surface is not null then 'crasis_table'
            when h.is_attested then 'source_surface'
            else 'longer_piece'
        end as resolution,
        coalesce(h.crasis_surface, p.surface) as surface,
        hi.token_pos is not null as is_headed_inside
    from pieces as p
    left join hyphen_words as h on p.word_id = h.word_id
    left join headed_inside as hi on p.sentence_uid = hi.sentence_uid and p.token_pos = hi.token_pos
),

ranked as (
    select
        *,
        row_number() over (
            partition by word_id
            order by
                -- a word left unresolved keeps its longer piece (its letters), whatever heads it
                case when resolution = 'longer_piece' then -length(regexp_replace(form, '[^\p{L}]', '', 'g')) end asc,
                -- a mark never survives its word
                case when split_kind in ('elision_mark', 'prodelision_mark') then is_clitic end asc,
                is_headed_inside asc,
                is_clitic asc,
                length(form) desc,
                token_pos
        ) = 1 as is_survivor
    from resolved
),

with_ids as (
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
        resolution,
        -- an unresolved word publishes the survivor's own form (hyphens trimmed), never a glued one
        case when resolution = 'longer_piece' then trim(form, '-') else surface end as surface,
        max(case when is_survivor then token_pos end) over (partition by word_id) as survivor_pos,
        -- the absorbed pieces' dependents re-attach to the survivor, unless the word was left
        -- unresolved (the dropped piece is removed like punctuation) or the survivor hangs from
        -- its mark (absorbing the mark into it would make a cycle)
        resolution <> 'longer_piece'
        and not (
            split_kind in ('elision_mark', 'prodelision_mark')
            and bool_or(is_survivor and is_headed_inside) over (partition by word_id)
        ) as merges_dependents,
        string_agg(src_id, '+' order by token_pos) over (
            partition by word_id order by token_pos
            rows between unbounded preceding and unbounded following
        ) as piece_src_ids
    from ranked
),

final as (
    select
        * exclude (survivor_pos),
        survivor_pos,
        -- the survivor's repair in native_syntax (int_tree_links): the pieces' source ids, and the
        -- reason when the word is not simply rejoined
        'split_word:' || piece_src_ids || case resolution
            when 'longer_piece' then ':no_crasis_entry_longer_piece_kept'
            when 'elision_mark' then ':elision_mark_attached'
            when 'prodelision_mark' then ':prodelision_mark_attached'
            else ''
        end as merge_repair
    from with_ids
)

select * from final
