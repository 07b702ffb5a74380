-- Per project, what one ingest loaded (ingest/load.py summary; SPEC §2, §13): files, sentences
-- counted by the scan independent of the parser, sentences ingested, words counted by that scan,
-- tokens ingested, rejects and the words they take. Reads the tables the ingest registers: ingest_files_in and ingest_rejects_in (the
-- Arrow tables it inserts into raw_files and ingest_rejects).
with

files as (select * from ingest_files_in),

rejects as (select * from ingest_rejects_in),

rejected as (
    select
        f.project,
        count(*) as n_rejects,
        sum(r.n_words) as n_words_rejected
    from rejects as r
    inner join files as f on r.file_id = f.file_id
    group by f.project
)

select
    f.project,
    count(distinct f.file_id) as n_files,
    sum(f.n_sentences_expected) as n_counted,
    sum(f.n_sentences_ingested) as n_sentences,
    sum(f.n_words_expected) as n_words_counted,
    sum(f.n_tokens_ingested) as n_tokens,
    coalesce(any_value(r.n_rejects), 0) as n_rejects,
    coalesce(any_value(r.n_words_rejected), 0) as n_words_rejected
from files as f
left join rejected as r on f.project = r.project
group by f.project
order by f.project
