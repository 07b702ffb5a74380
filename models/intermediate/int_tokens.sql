-- Every upstream token row of every project in one shape (SPEC §2). Grain: one row per raw_tokens row.
-- The XML word attributes map (`attrs`) stays in the raw layer (raw_tokens.attrs): staging takes
-- what the models use from it (`is_artificial`, `cite`), and writing the map again here would be
-- the most expensive column of this table.
with

unioned as (
    {{ union_staged('tokens') }}
),

final as (
    select
        * exclude (attrs),
        not(is_multiword or is_empty_node) as is_syntactic_word  -- punctuation included: see is_punct
    from unioned
)

select * from final
