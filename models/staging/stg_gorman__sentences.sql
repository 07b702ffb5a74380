-- Gorman's Greek Dependency Trees: one row per upstream sentence; @subdoc is the file's passage range;
-- the registry key is the file name.
{{ config(materialized='view') }}
{{ stg_sentences('gorman',
    document_key='file_name',
    document_urn="nullif(regexp_extract(document_id, 'urn:cts:[^ ]+'), '')") }}
