-- The works registry as this build uses it (SPEC §6): sql/seeds/works_registry.csv (profile
-- 'seed000', the curation decisions seed 000's published table implies) with the overrides of the
-- build's registry profile (var('registry_profile'), rows of sql/seeds/works_registry_profiles.csv)
-- applied. Grain: one row per registry document (project, document_key).
with

registry as (select * from {{ ref('works_registry') }}),

profiles as (select * from {{ ref('works_registry_profiles') }}),

overrides as (
    select
        project,
        document_key,
        decision,
        justification
    from profiles
    where profile = '{{ var("registry_profile") }}'
),

final as (
    select
        r.project,
        r.document_key,
        r.author,
        r.work,
        r.work_id,
        r.genre,
        coalesce(o.decision, r.decision) as decision,
        coalesce(o.justification, r.justification) as justification,
        r.decision as default_decision,
        o.decision is not null as is_profile_override,
        '{{ var("registry_profile") }}' as registry_profile
    from registry as r
    left join overrides as o on r.project = o.project and r.document_key = o.document_key
)

select * from final
