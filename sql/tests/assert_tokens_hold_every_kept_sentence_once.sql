-- `tokens` holds every kept sentence (a row of int_eligible_sentences) and nothing else, each in
-- its chosen parse only: the sentences of `tokens` are exactly the eligible rows, and each one's
-- tokens come from one upstream sentence. Returns the offending sentence keys.
with

eligible as (select * from {{ ref('int_eligible_sentences') }}),

tokens as (select * from {{ ref('tokens') }}),

token_sentences as (
    select
        sentence_key,
        count(distinct sentence_uid) as n_records
    from tokens
    group by sentence_key
)

select
    coalesce(e.row_id, t.sentence_key) as sentence_key,
    e.row_id is null as is_not_kept,
    t.sentence_key is null as is_missing,
    t.n_records
from eligible as e
full outer join token_sentences as t on e.row_id = t.sentence_key
where e.row_id is null or t.sentence_key is null or t.n_records <> 1
