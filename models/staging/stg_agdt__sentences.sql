-- AGDT 2.1 sentences (both snapshots: v2.1 texts and the v1.6 Homer books): one row per upstream
-- sentence, the raw columns renamed and typed (macro stg_sentences, sql/macros/staging.sql).
{{ config(materialized='view') }}
{{ stg_sentences('agdt') }}
