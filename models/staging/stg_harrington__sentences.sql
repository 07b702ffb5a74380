-- Harrington Trees: one row per upstream sentence; the registry key is the file name.
{{ config(materialized='view') }}
{{ stg_sentences('harrington',
    document_key='file_name',
    document_urn="nullif(regexp_extract(document_id, 'urn:cts:[^ ]+'), '')") }}
