-- AGDT 2.1 sentences (both snapshots: v2.1 texts and the v1.6 Homer books). One row per upstream sentence;
-- the registry key is the file name.
{{ config(materialized='view') }}
{{ stg_sentences('agdt',
    document_key='file_name',
    document_urn="regexp_extract(document_id, 'urn:cts:[^ ]+')") }}
