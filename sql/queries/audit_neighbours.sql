-- Neighbour leakage of an atomic configuration (sphragis audit, SPEC §11; sphragis/audit_claims.py):
-- per evaluation split, its rows and those with a neighbouring sentence in train: the sentence just
-- before or after one of the row's records in the same source file (path, sentence_uid ± 1: the
-- ingest numbers a file's sentences in order) is a record of a training row. A random split within
-- author and work (seed 000's main track) leaves most test sentences such a neighbour; a held-out
-- work leaves none. Parameters: $train (the training file), $evaluation (the evaluation files).
-- Grain: one row per evaluation split.
with

train_rows as (
    select unnest(source_records) as rec
    from read_parquet($train)
),

train_records as (
    select distinct
        rec.path,
        rec.sentence_uid
    from train_rows
),

evaluation_rows as (
    select
        split,
        id,
        unnest(source_records) as rec
    from read_parquet($evaluation)
),

evaluation_records as (
    select
        e.split,
        e.id,
        e.rec.path,
        e.rec.sentence_uid
    from evaluation_rows as e
),

flagged as (
    select
        e.split,
        e.id,
        bool_or(t.path is not null) as has_neighbour
    from evaluation_records as e
    left join train_records as t
        on e.path = t.path and (t.sentence_uid = e.sentence_uid - 1 or t.sentence_uid = e.sentence_uid + 1)
    group by e.split, e.id
)

select
    split,
    count(*) as n_rows,
    count(*) filter (where has_neighbour) as with_neighbour
from flagged
group by split
order by split
