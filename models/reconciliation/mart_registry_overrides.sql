-- Every registry document a named registry profile decides differently from the default profile
-- (SPEC §6), with the sentences of the document in this build, and whether that profile built
-- this warehouse. Grain: one row per (profile, project, document_key).
with

registry as (select * from {{ ref('works_registry') }}),

profiles as (select * from {{ ref('works_registry_profiles') }}),

active as (select * from {{ ref('int_registry_profiles') }}),

sentences as (select * from {{ ref('int_sentences') }}),

document_sentences as (
    select
        project,
        document_key,
        count(*) as sentences
    from sentences
    group by project, document_key
),

final as (
    select
        p.profile,
        p.project,
        p.document_key,
        r.author,
        r.work,
        r.decision as default_decision,
        p.decision,
        p.justification,
        coalesce(d.sentences, 0) as sentences,
        coalesce(a.is_active, false) as is_active
    from profiles as p
    inner join registry as r on p.project = r.project and p.document_key = r.document_key
    left join document_sentences as d on p.project = d.project and p.document_key = d.document_key
    left join active as a on p.profile = a.profile
)

select * from final
