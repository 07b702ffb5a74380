-- UD Perseus (dev + test here): the registry key is the `# newdoc id` (the AGDT file converted).
{{ config(materialized='view') }}
with

sentences as (
    {{ raw_sentences_of('ud_perseus') }}
),

renamed as (
    select
        * exclude (document_id, subdoc),
        document_id,
        document_id as document_key,
        cast(null as varchar) as passage,
        'urn:cts:greekLit:' || regexp_extract(document_id, '^(tlg\d+\.tlg\d+\.[a-z]+-grc\d+)', 1) as document_urn,
        {{ comment_value('text') }} as source_text
    from sentences
)

select * from renamed
