-- UD Perseus (dev + test here): one row per upstream sentence, the raw columns renamed and typed
-- (macro stg_sentences, sql/macros/staging.sql), and the `# text` comment; document_id is the
-- `# newdoc id` (the AGDT file converted).
{{ config(materialized='view') }}
{{ stg_sentences('ud_perseus',
    extra_columns={'source_text': comment_value('text')}) }}
