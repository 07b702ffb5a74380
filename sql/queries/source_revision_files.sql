-- The files read from each pinned snapshot, in path order, with checksums and counts
-- (source_revisions.json, SPEC §9). Grain: one row per snapshot.
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
from raw_files
group by snapshot
order by snapshot
