-- The file catalog (SPEC §1.1, §2): every ingested upstream file of every project with what the
-- warehouse knows of it besides its trees: its language (the root's xml:lang), its annotation
-- date (the root's `date` element, Arethusa's export stamp, read in the three ways the files
-- write it, as UTC), its sentences (counted, ingested, rejected, and the file-level problem if
-- the parser could not read it), and, where the project's snapshot has a metadata file
-- (registry file_metadata), the site's listing of it: author, work, locus and editors as the site
-- writes them. Grain: one row per raw_files row.
with

files as (select * from {{ ref('stg_raw__files') }}),

elements as (select * from {{ ref('stg_raw__file_elements') }}),

rejects as (select * from {{ ref('stg_raw__ingest_rejects') }}),

listings as (
    {{ union_staged('file_metadata', file_metadata='perseids_site_config') }}
),

first_listings as (
    -- a file the site lists twice: its first section
    select *
    from listings
    qualify row_number() over (
        partition by project, file_name order by collection_pos, publication_pos, section_pos
    ) = 1
),

dates as (
    select
        file_id,
        min(coalesce(
            try_strptime(trim(text), '%Y-%m-%d %H:%M:%S UTC'),
            timezone('UTC', try_strptime(trim(text), ['%Y-%m-%d %H:%M:%S %z', '%a %b %d %H:%M:%S %z %Y']))
        )) as annotation_date
    from elements
    where depth = 1 and tag = 'date'
    group by file_id
),

file_rejects as (
    select
        file_id,
        count(*) filter (where sentence_pos is not null) as n_sentences_rejected,
        string_agg(reason, '; ' order by line) filter (where sentence_pos is null) as file_problem
    from rejects
    group by file_id
),

final as (
    select
        f.project,
        f.file_id,
        f.snapshot,
        f.path,
        regexp_extract(f.path, '[^/]+$') as file_name,
        f.sha256,
        f.bytes,
        f.format,
        f.language,
        d.annotation_date,
        f.n_sentences_expected,
        f.n_sentences_ingested,
        coalesce(r.n_sentences_rejected, 0) as n_sentences_rejected,
        r.file_problem,
        f.n_tokens_ingested,
        l.file_name is not null as is_listed,
        nullif(array_to_string(l.author_parts, ' '), '') as listed_author,
        nullif(array_to_string(list_filter(l.work_parts, lambda w: w <> ''), ': '), '') as listed_work,  -- noqa: RF02
        l.locus as listed_locus,
        l.editors as listed_editors,
        l.collection_title as listed_collection
    from files as f
    left join dates as d on f.file_id = d.file_id
    left join file_rejects as r on f.file_id = r.file_id
    left join first_listings as l on f.project = l.project and regexp_extract(f.path, '[^/]+$') = l.file_name
)

select * from final
