-- Rows per split and the works held out of every retained author of the work-held-out track
-- (dataset card, build report `work_held_out_splits`; SPEC §8, issue 31).
select
    author,
    n_works,
    validation_titles as validation_works,
    test_titles as test_works,
    train_rows as train,
    validation_rows as validation,
    test_rows as test
from mart_work_held_out_choices
where is_retained
order by author
