{{ config(materialized='view') }}
{{ stg_tokens('agdt', conllu=false) }}
