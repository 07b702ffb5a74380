-- PapyGreek's document metadata: one row per file's root `document_meta` element (raw_file_elements),
-- its attributes typed: the Trismegistos and HGV ids (from the IDP data), the date range (years,
-- negative BCE) and place of origin.
{{ config(materialized='view') }}
with

documents as (
    {{ file_elements_of('papygreek', 'document_meta', 1) }}
),

renamed as (
    select
        project,
        file_id,
        path,
        file_name,
        element_pos,
        attrs['name'] as document_name,
        nullif(attrs['series_name'], '') as series_name,
        nullif(attrs['series_type'], '') as series_type,
        try_cast(nullif(attrs['tm_id'], '') as integer) as tm_id,
        nullif(attrs['hgv_id'], '') as hgv_id,
        try_cast(nullif(attrs['date_not_before'], '') as integer) as date_not_before,
        try_cast(nullif(attrs['date_not_after'], '') as integer) as date_not_after,
        nullif(attrs['place_name'], '') as place_name
    from documents
)

select * from renamed
