-- Near-twins at the character level (SPEC §7.1, the second measure beside the word n-grams of
-- int_overlap_texts): two eligible rows overlap when both have at least
-- var('overlap_char_min_ngrams') distinct character n-grams (n = var('overlap_char_ngram'), 5) of
-- their text with accents and spaces removed (the dedup_key: NFD without combining marks,
-- lowercase, final sigma → σ, letters only, SPEC §7) and the smaller set is at least
-- var('overlap_char_min_containment') inside the other. It finds what word n-grams miss: crasis
-- written two ways (ὁ ἕτερος / οὕτερος), words cut or joined differently, another sentence cut.
--
-- Exact and linear in the rows' lengths: the n-grams of a row come from its letters zipped with
-- their own shifts (no per-position lambda over the whole text), and the candidate pairs from
-- prefix filtering with a count filter: with every row's n-grams ranked rarest first (document
-- frequency, then the n-gram), a row A of n n-grams is contained at t in a row B at least as large
-- only if B holds at least q + 1 of A's first min(n, n - ceil(t * n) + 1 + q) (pigeonhole: at most
-- n minus that many of the shared n-grams lie after them; q shrinks for a short row); q = 5 keeps
-- the candidates to a few per row. Each candidate's shared n-grams are then counted.
-- Grain: one row per (row_id_a, row_id_b), row_id_a < row_id_b.
{% set count_filter = 5 %}
with

eligible as (select * from {{ ref('int_eligible_sentences') }}),

letters as (
    select
        row_id,
        string_split(dedup_key, '') as chars
    from eligible
),

grams as (
    -- noqa: disable=RF02
    select
        row_id,
        list_distinct(list_transform(
            list_zip(
                {% for k in range(var('overlap_char_ngram')) %}chars[{{ k + 1 }}:]{{ ", " if not loop.last }}{% endfor %}, true
            ),
            lambda g: concat({% for k in range(var('overlap_char_ngram')) %}g[{{ k + 1 }}]{{ ", " if not loop.last }}{% endfor %})
        )) as char_ngrams
    from letters
    -- noqa: enable=RF02
),

measured as materialized (
    -- computed once (referenced by the postings and the check of each candidate)
    select
        row_id,
        char_ngrams,
        len(char_ngrams) as n_ngrams
    from grams
    where len(char_ngrams) >= {{ var('overlap_char_min_ngrams') }}
),

postings as materialized (
    select
        row_id,
        n_ngrams,
        unnest(char_ngrams) as ngram
    from measured
),

frequencies as (
    select
        ngram,
        count(*) as df
    from postings
    group by ngram
),

ranked as (
    select
        p.row_id,
        p.n_ngrams,
        p.ngram,
        row_number() over (partition by p.row_id order by f.df, p.ngram) as rarity_rank
    from postings as p
    inner join frequencies as f on p.ngram = f.ngram
),

prefixes as (
    -- a row's rarest n - ceil(t * n) + 1 + q n-grams
    select
        row_id,
        n_ngrams,
        ngram
    from ranked
    where rarity_rank <= n_ngrams - ceil({{ var('overlap_char_min_containment') }} * n_ngrams) + 1 + {{ count_filter }}
),

candidates as (
    -- (smaller row, row at least as large) sharing enough prefix n-grams of the smaller
    select
        a.row_id as small_row_id,
        b.row_id as large_row_id
    from prefixes as a
    inner join postings as b
        on
            a.ngram = b.ngram
            and a.row_id <> b.row_id
            and (a.n_ngrams < b.n_ngrams or (a.n_ngrams = b.n_ngrams and a.row_id < b.row_id))
    group by a.row_id, a.n_ngrams, b.row_id
    -- q + 1, or every n-gram a short row can spare: min(q, ceil(t * n) - 1) + 1
    having count(*) >= least({{ count_filter }}, ceil({{ var('overlap_char_min_containment') }} * a.n_ngrams) - 1) + 1
),

shared as (
    select
        c.small_row_id,
        c.large_row_id,
        len(list_intersect(a.char_ngrams, b.char_ngrams)) as shared_char_ngrams,
        a.n_ngrams as small_ngrams,
        b.n_ngrams as large_ngrams
    from candidates as c
    inner join measured as a on c.small_row_id = a.row_id
    inner join measured as b on c.large_row_id = b.row_id
),

final as (
    select
        least(small_row_id, large_row_id) as row_id_a,
        greatest(small_row_id, large_row_id) as row_id_b,
        case when small_row_id < large_row_id then small_ngrams else large_ngrams end as char_ngrams_a,
        case when small_row_id < large_row_id then large_ngrams else small_ngrams end as char_ngrams_b,
        shared_char_ngrams,
        round(shared_char_ngrams / small_ngrams, 4) as char_containment
    from shared
    where shared_char_ngrams >= {{ var('overlap_char_min_containment') }} * small_ngrams
)

select * from final
