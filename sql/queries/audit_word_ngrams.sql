-- The character n-grams of every distinct word of the audited texts (audit_words: word_idx, word;
-- the words as Python's str.split cuts them), counted as scikit-learn's
-- CountVectorizer(analyzer="char_wb", ngram_range=($min_n, $max_n)) counts them: the word padded
-- with one space on each side, every n-gram of each length n in $min_n..$max_n up to the padded
-- word's length, and a padded word shorter than $min_n counted once, whole (sphragis audit,
-- SPEC §11). substring and length count code points, as Python does. Grain: one row per
-- (row_idx = word_idx, feature = n-gram) with its count n.
with

padded as (
    select
        word_idx,
        ' ' || word || ' ' as w,
        length(' ' || word || ' ') as len,
        greatest($min_n, length(' ' || word || ' ')) as longest_n
    from audit_words
),

lengths as (
    select unnest(range($min_n, $max_n + 1)) as n
),

offsets as (
    select unnest(range(1, max(len) + 1)) as i
    from padded
),

grams as (
    select
        p.word_idx,
        substring(p.w, o.i, l.n) as gram
    from padded as p
    inner join lengths as l on p.longest_n >= l.n
    inner join offsets as o on o.i <= greatest(1, p.len - l.n + 1)
)

select
    word_idx as row_idx,
    gram as feature,
    count(*) as n
from grams
group by all
