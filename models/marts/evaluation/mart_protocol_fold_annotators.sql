-- The annotators a protocol evaluation fold credits (SPEC §12, seed 001): one row per (fold,
-- annotator, role, layer) over the files holding a kept sentence of the fold, with how many of
-- them name that annotator. A file's root `annotator` elements name them either in an attribute
-- (PapyGreek: name, role, layer) or in a `name` child (Arethusa's export); an element without a
-- name (a tool's stamp) credits nobody. Addresses are not published.
with

elements as (select * from {{ ref('stg_raw__file_elements') }}),

fold_sentences as (select * from {{ ref('mart_protocol_fold_sentences') }}),

files as (select * from {{ ref('mart_protocol_fold_files') }}),

kept_files as (
    select distinct
        s.fold,
        f.file_id
    from fold_sentences as s
    inner join files as f on s.fold = f.fold and s.path = f.path
    where s.is_kept
),

annotators as (
    select
        a.file_id,
        coalesce(nullif(trim(a.attrs['name']), ''), nullif(trim(n.text), '')) as annotator,
        nullif(trim(a.attrs['role']), '') as role,
        nullif(trim(a.attrs['layer']), '') as layer
    from elements as a
    left join elements as n on a.file_id = n.file_id and a.element_pos = n.parent_pos and n.tag = 'name'
    where a.depth = 1 and a.tag = 'annotator'
),

final as (
    select
        k.fold,
        a.annotator,
        a.role,
        a.layer,
        count(distinct k.file_id) as n_files
    from kept_files as k
    inner join annotators as a on k.file_id = a.file_id
    where a.annotator is not null
    group by k.fold, a.annotator, a.role, a.layer
)

select * from final
order by fold asc, n_files desc, annotator asc, role asc, layer asc
