-- Pedalion: one row per upstream sentence, the raw columns renamed and typed (macro stg_sentences,
-- sql/macros/staging.sql), and the sentence's @Author attribute. Files can mix documents: the
-- sentence's @document_id is a TLG author-work code such as 0019-001.
{{ config(materialized='view') }}
{{ stg_sentences('pedalion',
    extra_columns={'source_author': "nullif(trim(attrs['Author']), '')"}) }}
