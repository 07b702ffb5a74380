-- Input the parsers could not take (SPEC §13: nothing silently lost): one row per ingest_rejects
-- row, the raw columns with the project of the rejected file (NULL when the file has no raw_files
-- row).
{{ config(materialized='view') }}
with

rejects as (select * from {{ source('raw', 'ingest_rejects') }}),

files as (select * from {{ source('raw', 'raw_files') }}),

renamed as (
    select
        r.file_id,
        f.project,
        r.path,
        r.line,
        r.sentence_pos,
        r.upstream_sentence_id,
        r.reason
    from rejects as r
    left join files as f on r.file_id = f.file_id
)

select * from renamed
