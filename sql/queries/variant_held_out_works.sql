-- The works each retained author of the work-held-out track has in each split
-- (dataset_variants.json `held_out_works`, SPEC §8). No parameters.
select
    author,
    train_works,
    validation_works,
    test_works
from mart_work_held_out_choices
where is_retained
order by author
