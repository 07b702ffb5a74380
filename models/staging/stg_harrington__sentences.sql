-- Harrington Trees: one row per upstream sentence, the raw columns renamed and typed (macro
-- stg_sentences, sql/macros/staging.sql).
{{ config(materialized='view') }}
{{ stg_sentences('harrington') }}
