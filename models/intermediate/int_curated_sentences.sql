-- Authorship curation (SPEC §6): every upstream sentence with its works-registry decision (under
-- the build's registry profile, int_works_registry).
-- A document with no registry row has decision NULL here and fails the relationships test
-- declared in _curation.yml, naming its key: the build never guesses an author.
with

sentences as (select * from {{ ref('int_sentences') }}),

registry as (select * from {{ ref('int_works_registry') }}),

joined as (
    select
        s.sentence_uid,
        s.project,
        s.document_key,
        s.project || ' | ' || s.document_key as registry_key,
        r.author,
        r.work,
        nullif(r.work_id, '') as work_id,
        r.genre,
        r.decision,
        r.decision = 'retained' as is_retained
    from sentences as s
    left join registry as r on s.project = r.project and s.document_key = r.document_key
)

select * from joined
