-- Authorship curation (SPEC §6): every upstream sentence with its curation decision, by its
-- project's registry authorship_rule: works_registry, the works-registry decision (under the
-- build's registry profile, int_works_registry) with its author, work and genre;
-- documentary_persons, the decision `documentary` (a documentary text has persons with roles,
-- int_documentary_persons, not a literary author). A file int_duplicate_files excludes gets
-- `duplicate_file`. `is_retained` (the sentence may enter the benchmark's dedup groups) needs the
-- decision `retained` and a project the benchmark draws from (registry in_benchmark).
-- A document with no registry row has decision NULL here and fails the relationships test
-- declared in _curation.yml, naming its key: the build never guesses an author.
with

sentences as (select * from {{ ref('int_sentences') }}),

registry as (select * from {{ ref('int_works_registry') }}),

documents as (select * from {{ ref('int_documentary_documents') }}),

duplicates as (
    select file_id from {{ ref('int_duplicate_files') }}
    where is_excluded
),

joined as (
    select
        s.sentence_uid,
        s.project,
        s.document_key,
        s.project || ' | ' || s.document_key as registry_key,
        r.author,
        r.work,
        nullif(r.work_id, '') as work_id,
        r.genre,
        case
            when x.file_id is not null then 'duplicate_file'
            when {{ project_in('s.project', authorship_rule='documentary_persons') }} and d.document_key is not null
                then 'documentary'
            when {{ project_in('s.project', authorship_rule='works_registry') }} then r.decision
        end as decision,
        {{ project_in('s.project', in_benchmark='true') }} as in_benchmark
    from sentences as s
    left join registry as r on s.project = r.project and s.document_key = r.document_key
    left join documents as d on s.project = d.project and s.document_key = d.document_key
    left join duplicates as x on s.file_id = x.file_id
),

final as (
    select
        *,
        decision = 'retained' and in_benchmark as is_retained
    from joined
)

select * from final
