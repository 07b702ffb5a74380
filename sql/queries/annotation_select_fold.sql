-- Annotation selection `<fold>` (sphragis.evaluation.annotations): the sentences of one UD fold
-- file in file order, with the upstream sent_id. Parameters: $project, $path (the fold's file).
-- Columns of every annotation selection: sentence_uid, sent_id, counterpart_uid (the UD sentence
-- it must match token for token, or NULL), reason (NULL unless it cannot be rendered), ord.
select
    s.sentence_uid,
    s.upstream_sentence_id as sent_id,
    null::bigint as counterpart_uid,
    null::varchar as reason,
    row_number() over (order by s.sentence_pos) as ord
from {{ ref('int_sentences') }} as s
where s.project = $project and s.path = $path
