-- The works-registry document key of every upstream sentence (SPEC §6): the key its project's
-- registry rows (sql/seeds/works_registry.csv) are written under, from the staged sentences, by
-- the rule the project registry names (document_key_rule; the rules: macro document_key,
-- sql/macros/registry.sql). Grain: one row per upstream sentence.
with

sentences as (
    {{ union_staged('sentences') }}
),

registry as (select * from {{ ref('projects') }}),

final as (
    select
        s.sentence_uid,
        s.project,
        {{ document_key('r.document_key_rule', 's') }} as document_key
    from sentences as s
    inner join registry as r on s.project = r.project
)

select * from final
