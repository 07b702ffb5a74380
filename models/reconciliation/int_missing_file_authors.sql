-- Which author labels each upstream file missing from the mirror would have supplied (SPEC §1):
-- for a UD split file (the train files), every author the registry retains for that
-- treebank (UD documents are spread over all three split files); for any other file, the
-- registry documents of that file (document key = its base name, or base name + '#' + document
-- id for Pedalion). Decisions are the default profile's (seed 000's). Grain: one row per
-- (missing file, author).
with

missing as (select * from {{ ref('stg_raw__pin_missing_files') }}),

registry as (select * from {{ ref('int_works_registry') }}),

matched as (
    select
        m.snapshot,
        m.path,
        m.project,
        m.treebank_source,
        m.revision,
        m.ud_split,
        m.split_sentences,
        m.devtest_sentences,
        r.author,
        r.document_key
    from missing as m
    inner join registry as r
        on
            m.project = r.project
            and (
                m.ud_split is not null
                or split_part(r.document_key, '#', 1) = regexp_extract(m.path, '[^/]+$')
            )
    where r.default_decision = 'retained'
),

final as (
    select
        snapshot,
        path,
        project,
        treebank_source,
        revision,
        ud_split,
        author,
        any_value(split_sentences) as split_sentences,
        any_value(devtest_sentences) as devtest_sentences,
        count(*) as registry_documents
    from matched
    group by snapshot, path, project, treebank_source, revision, ud_split, author
)

select * from final
