-- UD Perseus (dev + test here): the registry key is the `# newdoc id` (the AGDT file converted).
{{ config(materialized='view') }}
{{ stg_sentences('ud_perseus',
    document_key='document_id',
    passage='cast(null as varchar)',
    document_urn="'urn:cts:greekLit:' || regexp_extract(document_id, '^(tlg\\d+\\.tlg\\d+\\.[a-z]+-grc\\d+)', 1)",
    source_text=comment_value('text')) }}
