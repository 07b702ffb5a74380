-- The ingested upstream files (raw_files): one row per file with its snapshot, commit, checksum
-- and sentence/token counts (SPEC §9); read by the reporting marts of source revisions and of
-- the overlap manifest's sources.
{{ config(materialized='view') }}
with

files as (select * from {{ source('raw', 'raw_files') }}),

renamed as (
    select
        file_id,
        snapshot,
        project,
        treebank_source,
        commit,
        upstream,
        license,
        path,
        format,
        sha256,
        bytes,
        n_sentences_expected,
        n_sentences_ingested,
        n_tokens_ingested,
        root_attrs['{http://www.w3.org/XML/1998/namespace}lang'] as language
    from files
)

select * from renamed
