-- Every source sentence of the protocol evaluation fold $fold with its fate (sphragis folds'
-- manifest; SPEC §12, seed 001): sent_id as the fold's file writes it, the reasons it fails, the
-- reason it is counted under (NULL when kept), its real tokens and readings, its first
-- training-project match, and beyond the seed its first match once the dot below is taken off.
select
    regexp_replace(sentence_key, '\s+', '_', 'g') as sent_id,
    path,
    is_kept,
    reason,
    reasons,
    n_tokens,
    forms,
    training_sentence_key,
    n_training_matches,
    undotted_training_sentence_key
from {{ ref('mart_protocol_fold_sentences') }}
where fold = $fold
order by path, sentence_pos
