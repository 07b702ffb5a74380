{{ config(materialized='view') }}
{{ stg_xml_tokens('agdt') }}
