-- Upstream files the pinned mirror lacks (sphragis/sources.json `missing`), with the sentence
-- counts of the snapshot's stats.xml: one row per pin_missing_files row, as written.
{{ config(materialized='view') }}
with

missing as (select * from {{ source('raw', 'pin_missing_files') }}),

renamed as (
    select
        snapshot,
        project,
        treebank_source,
        revision,
        path,
        ud_split,
        split_sentences,
        devtest_sentences
    from missing
)

select * from renamed
