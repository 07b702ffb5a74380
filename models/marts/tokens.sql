-- The analyst's token table: each kept sentence once, in its chosen parse. A kept sentence is a
-- row of int_eligible_sentences (SPEC §6–§7): the authorship curation retains its document, and
-- its dedup group (the same letters, diacritics and case aside) is not omitted for conflicting
-- author labels; of the group's records, one per project that annotates the text, the chosen
-- parse is the highest-priority project's (seed projects, column priority), then the first in upstream
-- order. One row per token of the chosen parse's published unit (SPEC §5: no punctuation, no
-- elliptic node, split words joined), so counts, rates and concordances count a sentence once
-- however many projects annotate it; tokens_all_parses holds every project's parse. A view over
-- tokens_all_parses: the two tables have the same columns. Grain: one row per (sentence_key, i).
{{ config(materialized='view') }}
with

all_parses as (select * from {{ ref('tokens_all_parses') }}),

final as (
    select *
    from all_parses
    where is_chosen_parse and is_published_token
)

select * from final
