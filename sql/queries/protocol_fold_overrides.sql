-- The FORM and LEMMA a protocol evaluation fold writes instead of the source's (sphragis folds;
-- SPEC §12, seed 001): the reading (the editorial apparatus stripped) and the lemma, repaired where
-- the fold repairs lemmas, of every token of the fold $fold (mart_protocol_fold_tokens).
-- Columns of every annotation override: sentence_uid, token_pos, form, lemma.
select
    sentence_uid,
    token_pos,
    reading as form,
    lemma
from {{ ref('mart_protocol_fold_tokens') }}
where fold = $fold
