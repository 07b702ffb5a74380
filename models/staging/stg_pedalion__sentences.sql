-- Pedalion: one row per upstream sentence. Files can mix documents, so the registry key is
-- file name + '#' + the sentence's @document_id (a TLG author-work code such as 0019-001).
{{ config(materialized='view') }}
{{ stg_sentences('pedalion',
    document_key="file_name || '#' || coalesce(document_id, '')",
    document_urn="case when regexp_matches(document_id, '^\\d{4}-\\d{3}$')
            then 'urn:cts:greekLit:tlg' || document_id[1:4] || '.tlg' || document_id[6:8] end",
    extra_columns={'source_author': "nullif(trim(attrs['Author']), '')"}) }}
