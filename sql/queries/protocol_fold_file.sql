-- The sentences of one protocol evaluation fold (sphragis folds; SPEC §12, seed 001): the kept rows
-- of mart_protocol_fold_sentences of the fold $fold, in file and sentence order, with the columns
-- sphragis.evaluation.annotations.render_selection expects; the sent_id is the stable warehouse id
-- `<project>:<file name>:<position>`, whitespace written `_` (as the training treebank writes it).
select
    sentence_uid,
    regexp_replace(sentence_key, '\s+', '_', 'g') as sent_id,
    null::bigint as counterpart_uid,
    null::varchar as reason,
    row_number() over (order by path, sentence_pos) as ord
from {{ ref('mart_protocol_fold_sentences') }}
where fold = $fold and is_kept
