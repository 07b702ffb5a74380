-- UD PTNK (Septuagint): the registry key is the `# sent_id` book prefix (e.g. Septuagint-Genesis);
-- the passage is chapter:verse from the sent_id.
{{ config(materialized='view') }}
with

sentences as (
    {{ raw_sentences_of('ud_ptnk') }}
),

renamed as (
    select
        * exclude (document_id, subdoc),
        document_id,
        regexp_extract(upstream_sentence_id, '^(.*?)-\d+:', 1) as document_key,
        nullif(regexp_extract(upstream_sentence_id, '-(\d+:\d+(?:-\d+)?)-', 1), '') as passage,
        cast(null as varchar) as document_urn,
        {{ comment_value('text') }} as source_text
    from sentences
)

select * from renamed
