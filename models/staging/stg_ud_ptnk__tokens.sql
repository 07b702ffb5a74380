{{ config(materialized='view') }}
{{ stg_conllu_tokens('ud_ptnk') }}
