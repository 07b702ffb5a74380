-- Every upstream token row of every project in one shape (SPEC §2). Grain: one row per raw_tokens row.
with

unioned as (
    {{ union_staged('tokens') }}
),

final as (
    select
        *,
        not(is_multiword or is_empty_node) as is_word
    from unioned
)

select * from final
