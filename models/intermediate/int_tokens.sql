-- Every upstream token row of every project in one shape (SPEC §2). Grain: one row per raw_tokens row.
with

agdt as (select * from {{ ref('stg_agdt__tokens') }}),

gorman as (select * from {{ ref('stg_gorman__tokens') }}),

pedalion as (select * from {{ ref('stg_pedalion__tokens') }}),

harrington as (select * from {{ ref('stg_harrington__tokens') }}),

ud_perseus as (select * from {{ ref('stg_ud_perseus__tokens') }}),

ud_proiel as (select * from {{ ref('stg_ud_proiel__tokens') }}),

ud_ptnk as (select * from {{ ref('stg_ud_ptnk__tokens') }}),

unioned as (
    select * from agdt
    union all by name
    select * from gorman
    union all by name
    select * from pedalion
    union all by name
    select * from harrington
    union all by name
    select * from ud_perseus
    union all by name
    select * from ud_proiel
    union all by name
    select * from ud_ptnk
),

final as (
    select
        *,
        not(is_multiword or is_empty_node) as is_word
    from unioned
)

select * from final
