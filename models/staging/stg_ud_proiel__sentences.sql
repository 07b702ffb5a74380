-- UD PROIEL (dev + test here): one row per upstream sentence, the raw columns renamed and typed
-- (macro stg_sentences, sql/macros/staging.sql), and the `# text` and `# source` comments.
{{ config(materialized='view') }}
{{ stg_sentences('ud_proiel',
    extra_columns={'source_text': comment_value('text'), 'source_title': comment_value('source')}) }}
