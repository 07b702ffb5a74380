-- Pedalion: one row per upstream sentence. Files can mix documents, so the registry key is
-- file name + '#' + the sentence's @document_id (a TLG author-work code such as 0019-001).
{{ config(materialized='view') }}
with

sentences as (
    {{ raw_sentences_of('pedalion') }}
),

renamed as (
    select
        * exclude (document_id, subdoc),
        document_id,
        file_name || '#' || coalesce(document_id, '') as document_key,
        subdoc as passage,
        case
            when regexp_matches(document_id, '^\d{4}-\d{3}$')
                then 'urn:cts:greekLit:tlg' || document_id[1:4] || '.tlg' || document_id[6:8]
        end as document_urn,
        nullif(trim(attrs['Author']), '') as source_author,
        cast(null as varchar) as source_text
    from sentences
)

select
    * exclude (source_author),
    source_author
from renamed
