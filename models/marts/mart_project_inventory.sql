-- What the warehouse holds, per registered project (SPEC §1.1): its registry row (display name,
-- priority, format, published layer, whether the Sphragis benchmark draws from it), the licenses
-- of its pinned snapshots, and its files (read, unreadable, duplicates excluded or named),
-- sentences (counted in the files, ingested, rejected), tokens, documents and the sentences it
-- shares with another project (mart_file_inventory). The dataset card's inventory of the
-- warehouse. Grain: one row per project of the registry.
with

registry as (select * from {{ ref('projects') }}),

files as (select * from {{ ref('mart_file_inventory') }}),

licenses as (select * from {{ ref('stg_raw__files') }}),

sentences as (select * from {{ ref('int_sentences') }}),

project_files as (
    select
        project,
        count(*) as n_files,
        count(*) filter (where file_problem is not null) as n_files_unreadable,
        count(*) filter (where duplicate_reason is not null) as n_duplicate_files,
        count(*) filter (where is_excluded_duplicate) as n_duplicate_files_excluded,
        sum(n_sentences_expected) as n_sentences_counted,
        sum(n_sentences_ingested) as n_sentences_ingested,
        sum(n_sentences_rejected) as n_sentences_rejected,
        sum(n_tokens_ingested) as n_tokens,
        sum(n_sentences_shared) as n_sentences_shared,
        list_sort(list_distinct(flatten(list(shared_with)))) as shared_with
    from files
    group by project
),

project_licenses as (
    select
        project,
        list(distinct license order by license) as licenses
    from licenses
    group by project
),

documents as (
    select
        project,
        count(distinct document_key) as n_documents
    from sentences
    group by project
),

final as (
    select
        r.project,
        r.treebank_source,
        r.priority,
        r.format,
        r.published_layer,
        r.in_benchmark,
        coalesce(l.licenses, []) as licenses,
        coalesce(f.n_files, 0) as n_files,
        coalesce(f.n_files_unreadable, 0) as n_files_unreadable,
        coalesce(f.n_duplicate_files, 0) as n_duplicate_files,
        coalesce(f.n_duplicate_files_excluded, 0) as n_duplicate_files_excluded,
        coalesce(d.n_documents, 0) as n_documents,
        coalesce(f.n_sentences_counted, 0) as n_sentences_counted,
        coalesce(f.n_sentences_ingested, 0) as n_sentences_ingested,
        coalesce(f.n_sentences_rejected, 0) as n_sentences_rejected,
        coalesce(f.n_tokens, 0) as n_tokens,
        coalesce(f.n_sentences_shared, 0) as n_sentences_shared,
        coalesce(f.shared_with, []) as shared_with
    from registry as r
    left join project_files as f on r.project = f.project
    left join project_licenses as l on r.project = l.project
    left join documents as d on r.project = d.project
)

select * from final
