{{ config(materialized='view') }}
{{ stg_tokens('harrington', conllu=false) }}
