-- The files read from each pinned snapshot, in path order, with checksums and counts
-- (source_revisions.json, SPEC §9).
with

files as (select * from {{ ref('stg_raw__files') }}),

final as (
    select
        snapshot,
        list(
            {
                'path': path,
                'sha256': sha256,
                'bytes': bytes,
                'n_sentences_expected': n_sentences_expected,
                'n_sentences_ingested': n_sentences_ingested,
                'n_tokens_ingested': n_tokens_ingested
            }
            order by path
        ) as files
    from files
    group by snapshot
)

select * from final
