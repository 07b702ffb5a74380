-- AGDT 2.1 sentences (both snapshots: v2.1 texts and the v1.6 Homer books). One row per upstream sentence.
{{ config(materialized='view') }}
with

sentences as (
    {{ raw_sentences_of('agdt') }}
),

renamed as (
    select
        * exclude (document_id, subdoc),
        document_id,
        file_name as document_key,
        subdoc as passage,
        regexp_extract(document_id, 'urn:cts:[^ ]+') as document_urn,
        cast(null as varchar) as source_text
    from sentences
)

select * from renamed
