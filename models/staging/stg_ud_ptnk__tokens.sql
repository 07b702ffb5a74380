{{ config(materialized='view') }}
{{ stg_tokens('ud_ptnk', conllu=true) }}
