-- Every upstream file of every project, with what the warehouse made of it (SPEC §1.1, §2, §6,
-- §7): the catalog (int_files: language, annotation date, sentences counted, ingested and
-- rejected, the file-level problem, and the upstream site's listing of author, work and locus),
-- whether it duplicates another file of its project (int_duplicate_files), how curation decides
-- its sentences (decisions and author labels of int_curated_sentences), and how many of its
-- sentences another project has too (same SPEC §7 dedup key) and which projects. Grain: one row
-- per raw_files row.
with

files as (select * from {{ ref('int_files') }}),

duplicates as (select * from {{ ref('int_duplicate_files') }}),

sentences as (select * from {{ ref('int_sentences') }}),

curated as (select * from {{ ref('int_curated_sentences') }}),

units as (select * from {{ ref('int_units') }}),

key_projects as (
    select
        dedup_key,
        list(distinct project) as projects
    from units
    where dedup_key <> ''
    group by dedup_key
),

sentence_sharing as (
    -- each sentence with its decision and author and the other projects that have it
    select
        s.file_id,
        c.decision,
        c.author,
        list_filter(coalesce(k.projects, []), lambda p: p <> s.project) as other_projects  -- noqa: RF02
    from sentences as s
    inner join curated as c on s.sentence_uid = c.sentence_uid
    left join units as u on s.sentence_uid = u.sentence_uid
    left join key_projects as k on u.dedup_key = k.dedup_key
),

file_sentences as (
    select
        file_id,
        list(distinct decision order by decision) as decisions,
        list(distinct author order by author) filter (where author is not null) as authors,
        count(*) filter (where len(other_projects) > 0) as n_sentences_shared,
        list_sort(list_distinct(flatten(list(other_projects)))) as shared_with
    from sentence_sharing
    group by file_id
),

final as (
    select
        f.*,
        d.reason as duplicate_reason,
        d.duplicate_of,
        coalesce(d.is_excluded, false) as is_excluded_duplicate,
        coalesce(s.decisions, []) as decisions,
        coalesce(s.authors, []) as authors,
        coalesce(s.n_sentences_shared, 0) as n_sentences_shared,
        coalesce(s.shared_with, []) as shared_with
    from files as f
    left join duplicates as d on f.file_id = d.file_id
    left join file_sentences as s on f.file_id = s.file_id
)

select * from final
