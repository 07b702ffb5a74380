-- Fill raw_sentences from the sentence files the ingest workers spilled (ingest/load.py, SPEC §2
-- raw layer). Parameters as in ingest_raw_tokens.sql.
insert into {{ source('raw', 'raw_sentences') }} by name
select
    * exclude (sentence_uid),
    sentence_uid + $first_uids[file_id] as sentence_uid
from read_parquet($paths)
