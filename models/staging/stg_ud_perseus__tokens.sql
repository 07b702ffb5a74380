{{ config(materialized='view') }}
{{ stg_tokens('ud_perseus', conllu=true) }}
