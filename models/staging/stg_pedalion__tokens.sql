{{ config(materialized='view') }}
{{ stg_tokens('pedalion', conllu=false) }}
