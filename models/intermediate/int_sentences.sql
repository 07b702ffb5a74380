-- Every upstream sentence of every project, with provenance, its works-registry document key
-- (int_document_keys) and its citation (int_sentence_citations: passage, CTS URN where the source
-- gives the work) (SPEC §2, §6), and its sentence_key: `<project>:<file name>:<position in the file>`,
-- the one readable key of a sentence across the warehouse (upstream sent_ids repeat across files;
-- sentence_uid is a build's row number). The benchmark's row ids and the training treebank's
-- sent_ids are this key. Grain: one row per raw_sentences row.
with

unioned as (
    {{ union_staged('sentences') }}
),

document_keys as (select * from {{ ref('int_document_keys') }}),

citations as (select * from {{ ref('int_sentence_citations') }}),

final as (
    select
        s.sentence_uid,
        s.project || ':' || s.file_name || ':' || s.sentence_pos as sentence_key,
        s.project,
        s.treebank_source,
        s.snapshot,
        s.commit,
        s.upstream,
        s.license,
        s.file_id,
        s.path,
        s.file_name,
        s.sentence_pos,
        s.line,
        s.upstream_sentence_id,
        s.document_id,
        k.document_key,
        s.source_author,
        c.passage,
        c.document_urn,
        c.cts_urn,
        s.source_text,
        s.n_tokens
    from unioned as s
    inner join document_keys as k on s.sentence_uid = k.sentence_uid
    inner join citations as c on s.sentence_uid = c.sentence_uid
)

select * from final
