-- Tokens per published UPOS in each project, punctuation included as PUNCT (every token of every
-- sentence of each project, kept or not; table `tokens_all_parses`), with the UD UPOS each
-- published value holds (`merged_from`, seed ud_upos_to_tag): PROPN, AUX, DET, PART, CCONJ,
-- SCONJ and SYM have no published value of their own.
with

upos_pairs as (
    select distinct
        published_upos,
        upos
    from ud_upos_to_tag
),

published_values as (
    select
        published_upos,
        list(upos order by upos) as merged_from
    from upos_pairs
    group by published_upos
)

select
    t.project,
    t.upos,
    count(*) as n_tokens,
    any_value(m.merged_from) as merged_from
from tokens_all_parses as t
left join published_values as m on t.upos = m.published_upos
group by t.project, t.upos
order by t.project asc, n_tokens desc, t.upos asc
