-- The source lexicon (SPEC §5.1): every spelling that some project writes as an unsplit word, keyed
-- by lexicon_key (NFC, elision marks → U+2019, non-Greek characters dropped, lower_grc, grave →
-- acute: the shape of a published form). An unsplit word is a word token with a letter that is not
-- elliptic, not a CoNLL-U multiword range, and not a hyphen piece: no hyphen at its edges, and not
-- the partner of one (the token before does not end with `-`, the token after does not start with
-- `-`). Read by int_split_words (is the pieces' concatenation a word the sources write?) and by
-- mart_lexicon_check. The projects are those the benchmark draws from (registry in_benchmark):
-- the benchmark's published forms do not change when another project joins the warehouse.
-- Grain: one row per (project, form_key).
with

tokens as (
    select
        project,
        sentence_uid,
        token_pos,
        trim(form) as form,
        is_artificial
    from {{ ref('int_tokens') }}
    where is_syntactic_word and {{ project_in('project', in_benchmark='true') }}
),

neighbours as (
    select
        *,
        lag(form) over (partition by sentence_uid order by token_pos) as prev_form,
        lead(form) over (partition by sentence_uid order by token_pos) as next_form
    from tokens
),

unsplit as (
    select
        project,
        form
    from neighbours
    where
        not is_artificial
        and regexp_matches(form, '\p{L}')
        and not (starts_with(form, '-') or ends_with(form, '-'))
        and not coalesce(ends_with(prev_form, '-'), false)
        and not coalesce(starts_with(next_form, '-'), false)
),

spellings as (
    select
        project,
        form,
        count(*) as n_tokens
    from unsplit
    group by project, form
),

keyed as (
    select
        project,
        {{ lexicon_key('form') }} as form_key,  -- noqa: PRS
        n_tokens
    from spellings
),

final as (
    select
        project,
        form_key,
        sum(n_tokens) as n_tokens
    from keyed
    where regexp_matches(form_key, '\p{L}')
    group by project, form_key
)

select * from final
