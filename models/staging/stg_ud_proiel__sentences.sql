-- UD PROIEL (dev + test here): the registry key is the `# source` work (chapter, book and NT
-- chapter numbers removed); the passage is the first token's MISC `Ref=`.
{{ config(materialized='view') }}
{{ stg_sentences('ud_proiel',
    document_key="regexp_replace(regexp_replace(regexp_replace(" ~ comment_value('source')
        ~ ", ', chapter \\d+$', ''), ', Book \\d+$', ''), ' \\d+$', '')",
    passage="nullif(t.ref, '')",
    document_urn='cast(null as varchar)',
    source_text=comment_value('text'),
    first_token_ref=true) }}
