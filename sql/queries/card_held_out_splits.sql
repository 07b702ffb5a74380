-- Rows per split of every retained author of the source-held-out track (dataset card,
-- build report `held_out_splits`; SPEC §8).
select
    author,
    held_out_source,
    train_rows as train,
    validation_rows as validation,
    test_rows as test
from mart_held_out_choices
where is_retained
order by author
