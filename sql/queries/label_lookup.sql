-- The train-author lookup (SPEC §11: which columns reveal the label; dataset_variants.json
-- `metadata_columns`, and the audit's genre and project baselines): every value a training row
-- holds in a column votes for that row's author. Each value, and each of its prefixes and
-- suffixes cut at a ':' or '-' (so a file-named id, a CTS URN or an id that names its author
-- between dashes gives its file, work or author away), is a key that maps to its most frequent
-- training author (ties: the first in sort order). An evaluation row is predicted, for each distinct
-- value it holds, by the longest of its keys seen in training, then by the author most of its values
-- name (ties: the first in sort order); a row with no value seen in training is predicted the
-- majority training author (ties: the first in sort order, as the audit's majority baseline).
-- Registered tables, all integers but the values: lookup_rows (col, split, r, author: every row of
-- every split, for each column looked up; authors numbered in sort order), lookup_values (col,
-- split, r, author, value_id: the values each row holds in col, with the row's author) and
-- lookup_dictionary (value_id, value: each distinct value once: the work on strings is done once
-- per distinct value). Parameter $train: the split number of the training split.
-- Grain: one row per (col, evaluation split, r).
with

rows_in as (select * from lookup_rows),

values_in as (select * from lookup_values),

tokens as (
    -- a value (`<path>=<value>`, path: the column and its fields) as its path and the runs of
    -- other characters and single separators of its value (linear in its length)
    select
        value_id,
        left(value, instr(value, '=')) as path,
        regexp_extract_all(substr(value, instr(value, '=') + 1), '[^:-]+|[:-]') as parts
    from lookup_dictionary
),

cuts as (
    select
        value_id,
        path,
        parts,
        unnest(range(1, len(parts) + 1)) as k
    from tokens
),

affixes as (
    -- the whole value; every prefix ending before a separator; every suffix starting after one
    select
        value_id,
        path,
        array_to_string(parts[1:k], '') as affix
    from cuts
    where k = len(parts) or parts[k + 1] in (':', '-')
    union
    select
        value_id,
        path,
        array_to_string(parts[k:], '') as affix
    from cuts
    where k > 1 and parts[k - 1] in (':', '-')
),

value_keys as (
    -- a key is its path and affix; the longer affix is the more specific key
    select
        value_id,
        length(affix) as key_length,
        dense_rank() over (order by path, affix) as key_id
    from affixes
),

prefixes as (
    select
        v.col,
        v.split,
        v.r,
        v.author,
        v.value_id,
        k.key_length,
        k.key_id
    from values_in as v
    inner join value_keys as k on v.value_id = k.value_id
),

train_keys as (
    -- training rows per (key, author), a row counted once per key
    select
        col,
        key_id,
        author,
        count(*) as n_rows
    from (
        select distinct
            col,
            r,
            key_id,
            author
        from prefixes
        where split = $train
    ) as row_keys
    group by col, key_id, author
),

key_authors as (
    select
        col,
        key_id,
        first(author order by n_rows desc, author asc) as predicted
    from train_keys
    group by col, key_id
),

evaluation_prefixes as (
    select * from prefixes
    where split <> $train
),

value_predictions as (
    -- each evaluation value: the author of its longest key seen in training
    select
        p.col,
        p.split,
        p.r,
        p.value_id,
        first(k.predicted order by p.key_length desc, k.predicted asc) as predicted
    from evaluation_prefixes as p
    inner join key_authors as k on p.col = k.col and p.key_id = k.key_id
    group by p.col, p.split, p.r, p.value_id
),

row_predictions as (
    select
        col,
        split,
        r,
        first(predicted order by n_values desc, predicted asc) as predicted
    from (
        select
            col,
            split,
            r,
            predicted,
            count(*) as n_values
        from value_predictions
        group by col, split, r, predicted
    ) as votes
    group by col, split, r
),

evaluation_rows as (
    select * from rows_in
    where split <> $train
),

majority as (
    select
        col,
        first(author order by n_rows desc, author asc) as author
    from (
        select
            col,
            author,
            count(*) as n_rows
        from rows_in
        where split = $train
        group by col, author
    ) as train_authors
    group by col
)

select
    e.col,
    e.split,
    e.r,
    e.author,
    coalesce(p.predicted, m.author) as predicted,
    m.author as majority
from evaluation_rows as e
inner join majority as m on e.col = m.col
left join row_predictions as p on e.col = p.col and e.split = p.split and e.r = p.r
order by e.col, e.split, e.r
