-- The lexicon check (SPEC §5.1): published forms that occur nowhere in the sources as an
-- unsplit word of any project (int_source_lexicon, keyed as a published form is spelled), with how
-- often and where they are published. A measurement, not a rule: the list a reviewer reads to find
-- the next class of non-words (glued pieces, stray marks, keraia read as breathings). The forms of
-- the projects the benchmark draws from (registry in_benchmark), as the lexicon. Grain: one row
-- per published form.
with

published as (
    select
        sentence_uid,
        i,
        form
    from {{ ref('int_published_tokens') }}
),

sentences as (
    select
        sentence_uid,
        project
    from {{ ref('int_sentences') }}
    where {{ project_in('project', in_benchmark='true') }}
),

lexicon as (
    select distinct form_key from {{ ref('int_source_lexicon') }}
),

unattested as (
    select
        p.form,
        s.project,
        p.sentence_uid,
        p.i
    from published as p
    inner join sentences as s on p.sentence_uid = s.sentence_uid
    anti join lexicon as l on p.form = l.form_key
),

final as (
    select
        form,
        count(*) as n_tokens,
        list(distinct project order by project) as projects,
        min(sentence_uid) as example_sentence_uid,
        min_by(i, (sentence_uid, i)) as example_i  -- the first token of the example: ties broken
    from unattested
    group by form
)

select * from final
