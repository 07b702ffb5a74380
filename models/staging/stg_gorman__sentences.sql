-- Gorman's Greek Dependency Trees: one row per upstream sentence, the raw columns renamed and typed
-- (macro stg_sentences, sql/macros/staging.sql); @subdoc is the file's passage range.
{{ config(materialized='view') }}
{{ stg_sentences('gorman') }}
