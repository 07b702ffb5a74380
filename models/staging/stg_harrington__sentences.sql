-- Harrington Trees: one row per upstream sentence.
{{ config(materialized='view') }}
with

sentences as (
    {{ raw_sentences_of('harrington') }}
),

renamed as (
    select
        * exclude (document_id, subdoc),
        document_id,
        file_name as document_key,
        subdoc as passage,
        nullif(regexp_extract(document_id, 'urn:cts:[^ ]+'), '') as document_urn,
        cast(null as varchar) as source_text
    from sentences
)

select * from renamed
