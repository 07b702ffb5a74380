-- UNESP Trees: one row per upstream sentence, the raw columns renamed and typed (macro
-- stg_sentences, sql/macros/staging.sql); @document_id is a CTS URN or an abbreviation, @subdoc the passage.
{{ config(materialized='view') }}
{{ stg_sentences('unesp') }}
