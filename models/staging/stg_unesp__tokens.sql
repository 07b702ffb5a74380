-- UNESP Trees tokens: one row per upstream token row, the raw columns renamed and typed (macro stg_tokens, sql/macros/staging.sql).
{{ config(materialized='view') }}
{{ stg_tokens('unesp') }}
