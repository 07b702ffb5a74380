-- UD PTNK (Septuagint): the registry key is the `# sent_id` book prefix (e.g. Septuagint-Genesis);
-- the passage is chapter:verse from the sent_id.
{{ config(materialized='view') }}
{{ stg_sentences('ud_ptnk',
    document_key="regexp_extract(upstream_sentence_id, '^(.*?)-\\d+:', 1)",
    passage="nullif(regexp_extract(upstream_sentence_id, '-(\\d+:\\d+(?:-\\d+)?)-', 1), '')",
    document_urn='cast(null as varchar)',
    source_text=comment_value('text')) }}
