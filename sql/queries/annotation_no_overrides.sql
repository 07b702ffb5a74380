-- No override (sphragis.evaluation.annotations): an empty relation with the columns of an
-- annotation override (sentence_uid, token_pos, form, lemma), so that every view renders the
-- warehouse's own FORM and LEMMA.
select
    null::bigint as sentence_uid,
    null::integer as token_pos,
    null::varchar as form,
    null::varchar as lemma
where false
