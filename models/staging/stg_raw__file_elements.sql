-- The preamble of every ingested XML file as nodes (raw_file_elements: the root's children other
-- than sentences and their descendants; SPEC §2), with the file's project and path: read by the
-- file catalog (int_files: a file's annotation date).
{{ config(materialized='view') }}
with

elements as (select * from {{ source('raw', 'raw_file_elements') }}),

files as (select * from {{ source('raw', 'raw_files') }}),

renamed as (
    select
        e.file_id,
        f.project,
        f.path,
        e.element_pos,
        e.parent_pos,
        e.depth,
        e.tag,
        e.namespace,
        e.attrs,
        e.text,
        e.tail
    from elements as e
    inner join files as f on e.file_id = f.file_id
)

select * from renamed
