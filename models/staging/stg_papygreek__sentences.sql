-- PapyGreek Treebanks (documentary papyri): one row per upstream sentence, the raw columns renamed
-- and typed (macro stg_sentences, sql/macros/staging.sql); a sentence carries only its @id.
{{ config(materialized='view') }}
{{ stg_sentences('papygreek') }}
