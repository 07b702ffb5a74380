-- The published units the exporter assembles its payload columns from (export/writer.py
-- fetch_units; SPEC §9): every row_id of mart_split_rows, with the text, token list and native
-- syntax of its chosen parse from int_units (int_eligible_sentences holds only its sentence_uid)
-- and the provenance of int_eligible_sentences. A view: a table would hold a second copy of every
-- published token list.
{{ config(materialized='view') }}

with

eligible as (select * from {{ ref('int_eligible_sentences') }}),

units as (select * from {{ ref('int_units') }}),

split_rows as (select * from {{ ref('mart_split_rows') }}),

final as (
    select
        e.row_id,
        u.text,
        u.tokens,
        e.cts_urn,
        e.passage,
        e.treebank_source,
        e.dedup_key,
        u.native_syntax,
        e.source_records,
        e.licenses
    from eligible as e
    inner join units as u on e.sentence_uid = u.sentence_uid
    where e.row_id in (select s.row_id from split_rows as s)
)

select * from final
