-- Files that duplicate another file of their project, found by content (SPEC §1.1): a file is a
-- duplicate when another file of the project has the same bytes (`reason` byte_identical), or
-- when at least var('duplicate_file_min_share') of its distinct sentence keys are held by files of
-- the project that rank above it (`re_annotation`: an earlier or other annotation of the same
-- sentences). A sentence key is the SPEC §7 dedup key (macro dedup_key) of the sentence's source
-- forms (its word tokens, artificial nodes left out), so that it holds for a text in any script.
-- Files rank by: listed in the project's metadata file (int_files.is_listed: the version the site
-- publishes), then the newer annotation date, then more sentences, then path. `duplicate_of` is
-- the file above it with the same bytes, else the one holding most of its keys; `is_excluded` says
-- whether the registry (duplicate_files) excludes its sentences (int_curated_sentences: decision
-- duplicate_file). Grain: one row per duplicate file.
with

files as (select * from {{ ref('int_files') }}),

sentences as (select * from {{ ref('int_sentences') }}),

tokens as (select * from {{ ref('int_tokens') }}),

ranked as (
    select
        project,
        file_id,
        path,
        file_name,
        sha256,
        row_number() over (
            partition by project
            order by is_listed desc, annotation_date desc nulls last, n_sentences_ingested desc, path asc
        ) as file_rank
    from files
),

sentence_keys as (
    select
        sentence_uid,
        {{ dedup_key("string_agg(form, '' order by token_pos)") }} as sentence_key
    from tokens
    where is_syntactic_word and not is_artificial
    group by sentence_uid
),

file_keys as (
    select distinct
        s.project,
        s.file_id,
        k.sentence_key
    from sentences as s
    inner join sentence_keys as k on s.sentence_uid = k.sentence_uid
    where k.sentence_key <> ''
),

key_counts as (
    select
        file_id,
        count(*) as n_keys
    from file_keys
    group by file_id
),

held_above as (
    -- each key of a file with the files ranked above it that hold it too
    select
        k.file_id,
        k.sentence_key,
        o.file_id as other_file_id
    from file_keys as k
    inner join ranked as r on k.file_id = r.file_id
    inner join file_keys as o on k.project = o.project and k.sentence_key = o.sentence_key and k.file_id <> o.file_id
    inner join ranked as ro on o.file_id = ro.file_id
    where ro.file_rank < r.file_rank
),

shares as (
    select
        file_id,
        count(distinct sentence_key) as n_keys_held
    from held_above
    group by file_id
),

most_shared as (
    select
        file_id,
        other_file_id,
        count(*) as n_shared
    from held_above
    group by file_id, other_file_id
    qualify row_number() over (partition by file_id order by count(*) desc, other_file_id asc) = 1
),

same_bytes as (
    -- the top-ranked other file with the same bytes
    select
        r.file_id,
        min_by(o.file_id, o.file_rank) as other_file_id
    from ranked as r
    inner join ranked as o on r.project = o.project and r.sha256 = o.sha256 and r.file_rank > o.file_rank
    group by r.file_id
),

duplicates as (
    select
        r.file_id,
        coalesce(b.other_file_id, m.other_file_id) as other_file_id,
        case when b.other_file_id is not null then 'byte_identical' else 're_annotation' end as reason
    from ranked as r
    left join same_bytes as b on r.file_id = b.file_id
    left join key_counts as k on r.file_id = k.file_id
    left join shares as s on r.file_id = s.file_id
    left join most_shared as m on r.file_id = m.file_id
    where b.other_file_id is not null or s.n_keys_held >= {{ var('duplicate_file_min_share') }} * k.n_keys
),

final as (
    select
        r.project,
        r.file_id,
        r.path,
        r.file_name,
        d.reason,
        o.file_name as duplicate_of,
        o.path as duplicate_of_path,
        coalesce(k.n_keys, 0) as n_keys,
        coalesce(s.n_keys_held, 0) as n_keys_held,
        coalesce(round(s.n_keys_held / k.n_keys, 4), 0) as share_held,
        {{ project_in('r.project', duplicate_files='excluded') }} as is_excluded
    from duplicates as d
    inner join ranked as r on d.file_id = r.file_id
    inner join ranked as o on d.other_file_id = o.file_id
    left join key_counts as k on d.file_id = k.file_id
    left join shares as s on d.file_id = s.file_id
)

select * from final
