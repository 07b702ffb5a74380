-- UD Perseus dev/test sentences without an AGDT source sentence, with the reason and the
-- candidate AGDT sentences.
select
    fold,
    ud_sentence_uid as sentence_uid,
    ud_sent_id as sent_id,
    reason,
    candidate_sentence_uids
from mart_ud_perseus_agdt_overlap
where not resolved
order by fold, ud_sentence_uid
