-- The gold lemmas the protocol evaluation fold $fold repairs in its kept sentences (sphragis folds'
-- manifest; SPEC §12, seed 001 "Verse, out of domain"): each token with the source lemma (before),
-- the lemma the warehouse's normalization alone makes of it, and the lemma emitted (after).
select
    regexp_replace(s.sentence_key, '\s+', '_', 'g') as sent_id,
    t.src_id as token,
    t.form,
    t.source_lemma as before,
    t.normalized_lemma as normalized_without_repair,
    t.lemma as after,
    t.lemma_repair as repair
from {{ ref('mart_protocol_fold_tokens') }} as t
inner join {{ ref('mart_protocol_fold_sentences') }} as s on t.fold = s.fold and t.sentence_uid = s.sentence_uid
where t.fold = $fold and s.is_kept and t.lemma_repair is not null
order by s.path, s.sentence_pos, t.token_pos
