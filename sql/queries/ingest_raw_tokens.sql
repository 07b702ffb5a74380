-- Fill raw_tokens from the token files the ingest workers spilled (ingest/load.py, SPEC §2 raw
-- layer). Parameters: $paths, one Parquet file per source file in file_id order (rows keep that
-- order); $first_uids, per file_id its first sentence_uid. A spilled row's sentence_uid is the
-- 0-based position of its sentence among the file's ingested sentences.
insert into {{ source('raw', 'raw_tokens') }} by name
select
    * exclude (sentence_uid, file_id),
    sentence_uid + $first_uids[file_id] as sentence_uid
from read_parquet($paths)
