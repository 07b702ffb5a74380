-- PapyGreek's annotators: one row per root `annotator` element of a file (raw_file_elements): who
-- annotated, reviewed or approved which layer (orig or reg), and when.
{{ config(materialized='view') }}
with

annotators as (
    {{ file_elements_of('papygreek', 'annotator', 1) }}
),

renamed as (
    select
        project,
        file_id,
        path,
        file_name,
        element_pos,
        nullif(trim(attrs['name']), '') as annotator,
        nullif(attrs['role'], '') as role,
        try_cast(nullif(attrs['date'], '') as date) as annotated_on,
        nullif(attrs['layer'], '') as layer
    from annotators
)

select * from renamed
