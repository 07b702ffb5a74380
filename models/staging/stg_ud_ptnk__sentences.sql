-- UD PTNK (Septuagint): one row per upstream sentence, the raw columns renamed and typed (macro
-- stg_sentences, sql/macros/staging.sql), and the `# text` comment; the `# sent_id` holds the book
-- and chapter:verse (e.g. Septuagint-Genesis-31:1-grc).
{{ config(materialized='view') }}
{{ stg_sentences('ud_ptnk',
    extra_columns={'source_text': comment_value('text')}) }}
