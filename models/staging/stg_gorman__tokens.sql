{{ config(materialized='view') }}
{{ stg_tokens('gorman', conllu=false) }}
