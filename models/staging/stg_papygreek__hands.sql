-- PapyGreek's hands: one row per root `hand_meta` element of a file (raw_file_elements), a part of
-- the document written by one hand (`name`, e.g. m1, matches the words' @hand), with its text
-- type (three levels, EVWRIT's list; absent for a subscript or marginal note; of a hand with two,
-- the first, `n_text_types` saying how many it has).
{{ config(materialized='view') }}
with

hands as (
    {{ file_elements_of('papygreek', 'hand_meta', 1) }}
),

text_types as (
    {{ file_elements_of('papygreek', 'text_type', 2) }}
),

renamed as (
    select
        h.project,
        h.file_id,
        h.path,
        h.file_name,
        h.element_pos as hand_pos,
        h.attrs['name'] as hand,
        try_cast(h.attrs['id'] as integer) as hand_id,
        nullif(t.attrs['hypercategory'], '') as text_hypercategory,
        nullif(t.attrs['category'], '') as text_category,
        nullif(t.attrs['subcategory'], '') as text_subcategory,
        count(t.element_pos) over (partition by h.file_id, h.element_pos) as n_text_types
    from hands as h
    left join text_types as t on h.file_id = t.file_id and h.element_pos = t.parent_pos
    qualify row_number() over (partition by h.file_id, h.element_pos order by t.element_pos) = 1
)

select * from renamed
