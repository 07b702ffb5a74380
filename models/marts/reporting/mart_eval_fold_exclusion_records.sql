-- The training-exclusion records of every evaluation fold (SPEC §12, seed 001 "Leakage
-- controls"): each training-side sentence overlapping the fold once, with its match_rule ('forms'
-- when some fold sentence has the identical form sequence with punctuation) and role ('source'
-- for the AGDT sentence a UD Perseus fold sentence was resolved to: the registry's
-- `converted_from` pairs), and the matched fold sent_ids.
with

fold_overlap as (select * from {{ ref('mart_eval_fold_overlap') }}),

conversions as (
    {{ registry_conversions() }}
),

perseus_overlap as (select * from {{ ref('mart_ud_perseus_agdt_overlap') }}),

sources as (
    select distinct
        fold,
        agdt_sentence_uid
    from perseus_overlap
    where resolved
),

final as (
    select
        o.fold_project || '-' || o.fold as fold_name,
        o.project,
        o.path,
        o.upstream_sentence_id,
        o.sentence_uid,
        case when bool_or(o.forms_identical) then 'forms' else 'forms_without_punctuation' end as match_rule,
        case when bool_or(s.agdt_sentence_uid is not null) then 'source' else 'identical_text' end as role,
        list(distinct o.fold_sent_id order by o.fold_sent_id) as fold_sent_ids
    from fold_overlap as o
    left join conversions as c on o.fold_project = c.ud_project and o.project = c.source_project
    left join sources as s
        on
            c.ud_project is not null
            and o.fold = s.fold and o.sentence_uid = s.agdt_sentence_uid
    group by all
)

select * from final
