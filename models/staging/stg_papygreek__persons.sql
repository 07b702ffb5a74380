-- PapyGreek's persons per hand: one row per `person` element of a `hand_meta` (raw_file_elements),
-- its attributes typed: the PapyGreek person id (stable across documents), the Trismegistos person
-- id, the role for this hand (author, writer, addressee, or external scribal official), name and
-- gender code as written, and the document-specific notes (handwriting, epithet, ethnic label,
-- occupation, domicile, age, education, uncertainty).
{{ config(materialized='view') }}
with

hands as (
    {{ file_elements_of('papygreek', 'hand_meta', 1) }}
),

persons as (
    {{ file_elements_of('papygreek', 'person', 2) }}
),

renamed as (
    select
        p.project,
        p.file_id,
        p.path,
        p.file_name,
        p.element_pos,
        p.parent_pos as hand_pos,
        h.attrs['name'] as hand,
        try_cast(nullif(p.attrs['pg_id'], '') as integer) as pg_id,
        try_cast(nullif(p.attrs['tm_id'], '') as integer) as tm_person_id,
        nullif(p.attrs['role'], '') as role,
        nullif(trim(p.attrs['name']), '') as name,
        nullif(p.attrs['gender'], '') as gender_code,
        nullif(p.attrs['handwriting'], '') as handwriting,
        nullif(p.attrs['honorific_epithet'], '') as honorific_epithet,
        nullif(p.attrs['ethnic_label'], '') as ethnic_label,
        nullif(p.attrs['occupation'], '') as occupation,
        nullif(p.attrs['domicile'], '') as domicile,
        nullif(p.attrs['age'], '') as age,
        nullif(p.attrs['education'], '') as education,
        nullif(p.attrs['uncertain'], '') as uncertain
    from persons as p
    inner join hands as h on p.file_id = h.file_id and p.parent_pos = h.element_pos
)

select * from renamed
