-- UD PROIEL (dev + test here): the registry key is the `# source` work (chapter, book and NT
-- chapter numbers removed); the passage is the first token's MISC `Ref=`.
{{ config(materialized='view') }}
with

sentences as (
    {{ raw_sentences_of('ud_proiel') }}
),

first_tokens as (
    select
        sentence_uid,
        regexp_extract(misc, '(?:^|\|)Ref=([^|]*)', 1) as ref
    from {{ source('raw', 'raw_tokens') }}
    where token_pos = 1
),

renamed as (
    select
        s.* exclude (document_id, subdoc),
        s.document_id,
        regexp_replace(
            regexp_replace(
                regexp_replace({{ comment_value('source') }}, ', chapter \d+$', ''),
                ', Book \d+$', ''
            ),
            ' \d+$', ''
        ) as document_key,
        nullif(t.ref, '') as passage,
        cast(null as varchar) as document_urn,
        {{ comment_value('text') }} as source_text
    from sentences as s
    left join first_tokens as t on s.sentence_uid = t.sentence_uid
)

select * from renamed
