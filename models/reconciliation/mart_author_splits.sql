-- sentence_1 rows per author label and split, wide, next to seed 000's published table (the
-- dataset card's "Data Splits" table). Grain: one row per author of the build or the seed.
with

reconciliation as (select * from {{ ref('mart_seed_reconciliation') }}),

final as (
    select
        author,
        sum(build_rows) filter (where split = 'train') as train,
        sum(build_rows) filter (where split = 'validation') as validation,
        sum(build_rows) filter (where split = 'test') as test,
        sum(build_rows) as total,
        sum(seed_rows) filter (where split = 'train') as seed_train,
        sum(seed_rows) filter (where split = 'validation') as seed_validation,
        sum(seed_rows) filter (where split = 'test') as seed_test,
        sum(seed_rows) as seed_total,
        bool_and(matches_seed) as matches_seed,
        sum(abs(unexplained_rows)) as unexplained_rows
    from reconciliation
    group by author
)

select * from final
