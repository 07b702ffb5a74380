-- No override (sphragis.evaluation.annotations): for the sentences of the registered
-- `annotation_selection`, no token, so that every view renders the warehouse's own FORM and LEMMA.
-- Columns of every annotation override: sentence_uid, token_pos, form, lemma.
select
    sel.sentence_uid,
    null::integer as token_pos,
    null::varchar as form,
    null::varchar as lemma
from annotation_selection as sel
where false
