-- PapyGreek tokens: one row per word, the registry's published layer (reg) as form, lemma, postag,
-- relation and head (macro stg_tokens, sql/macros/staging.sql); both layers: stg_papygreek__words.
{{ config(materialized='view') }}
{{ stg_tokens('papygreek') }}
