-- Annotation selection `agdt@ud_perseus-<split>` (sphragis.evaluation.annotations): the AGDT
-- sentences mart_ud_perseus_agdt_overlap resolves the fold's sentences to, in the fold's order,
-- each with the UD sent_id and the UD sentence as its counterpart. Parameter: $split (dev, test).
-- Columns as annotation_select_fold.
select
    o.agdt_sentence_uid as sentence_uid,
    o.ud_sent_id as sent_id,
    o.ud_sentence_uid as counterpart_uid,
    o.reason,
    row_number() over (order by u.sentence_pos) as ord
from {{ ref('mart_ud_perseus_agdt_overlap') }} as o
inner join {{ ref('int_sentences') }} as u on o.ud_sentence_uid = u.sentence_uid
where o.fold = $split
