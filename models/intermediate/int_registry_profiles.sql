-- Registry profiles a build can select (SPEC §6): the default
-- var('default_registry_profile') ('seed000': the registry seed as written) and every profile named in sql/seeds/works_registry_profiles.csv, with the
-- number of documents each overrides and whether it is the one this build used. Grain: one row
-- per profile.
with

profiles as (select * from {{ ref('works_registry_profiles') }}),

named as (
    select
        profile,
        count(*) as overridden_documents
    from profiles
    group by profile
),

default_profile as (
    select
        '{{ var("default_registry_profile") }}' as profile,
        0 as overridden_documents
),

all_profiles as (
    select * from default_profile
    union all
    select * from named
),

active as (
    select '{{ var("registry_profile") }}' as profile
),

final as (
    select
        coalesce(p.profile, a.profile) as profile,
        coalesce(p.overridden_documents, 0) as overridden_documents,
        a.profile is not null as is_active,
        p.profile is not null as is_known
    from all_profiles as p
    full outer join active as a on p.profile = a.profile
)

select * from final
