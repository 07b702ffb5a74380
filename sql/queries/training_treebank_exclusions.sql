-- Every training-side sentence left out of the training treebank, with its reasons, the folds
-- and fold sent_ids it matched and the sentence kept in its place (manifest `excluded`, issue 18).
select
    sent_id,
    project,
    path,
    upstream_sentence_id,
    reason,
    reasons,
    folds,
    fold_sent_ids,
    match_rule,
    work_id,
    curation_decision,
    kept_sent_id
from mart_training_treebank_exclusions
order by project, sent_id
