-- Every upstream sentence of every project, with provenance and a CTS URN where the source
-- gives the work (SPEC §2). Grain: one row per raw_sentences row.
with

agdt as (select * from {{ ref('stg_agdt__sentences') }}),

gorman as (select * from {{ ref('stg_gorman__sentences') }}),

pedalion as (select * from {{ ref('stg_pedalion__sentences') }}),

harrington as (select * from {{ ref('stg_harrington__sentences') }}),

ud_perseus as (select * from {{ ref('stg_ud_perseus__sentences') }}),

ud_proiel as (select * from {{ ref('stg_ud_proiel__sentences') }}),

ud_ptnk as (select * from {{ ref('stg_ud_ptnk__sentences') }}),

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
        sentence_uid,
        project,
        treebank_source,
        snapshot,
        commit,
        upstream,
        license,
        file_id,
        path,
        file_name,
        sentence_pos,
        line,
        upstream_sentence_id,
        document_id,
        document_key,
        source_author,
        passage,
        document_urn,
        case
            when document_urn is not null and passage is not null then document_urn || ':' || passage
            else document_urn
        end as cts_urn,
        source_text,
        n_tokens
    from unioned
)

select * from final
