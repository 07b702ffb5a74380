-- The sentences of one training-treebank file (sphragis export-treebank): the rows of
-- mart_training_treebank of the projects in $projects and of the split $split, in writing order,
-- with the columns sphragis.evaluation.annotations.render_selection expects.
select
    sentence_uid,
    sent_id,
    null::bigint as counterpart_uid,
    null::varchar as reason,
    ord
from {{ ref('mart_training_treebank') }}
where list_contains($projects, project) and split = $split
