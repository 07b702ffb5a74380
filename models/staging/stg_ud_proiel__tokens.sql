{{ config(materialized='view') }}
{{ stg_tokens('ud_proiel', conllu=true) }}
