-- Sentences per evaluation fold ('<fold_project>-<fold>', from the UD file name), for every
-- project of the seed evaluation_folds.
select
    project || '-' || regexp_extract(path, '-ud-(dev|test|train)\.conllu$', 1) as fold_name,
    count(*) as sentences
from int_sentences
where project in (select evaluation_folds.fold_project from evaluation_folds)
group by all
