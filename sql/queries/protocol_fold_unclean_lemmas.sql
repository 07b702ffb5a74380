-- The lemmas of the kept sentences of the protocol evaluation fold $fold that are not a clean Greek
-- headword (the regular expression $clean), punctuation left out (sphragis folds' manifest; seed 001
-- "Verse, out of domain": every emitted lemma a clean Greek headword).
select
    regexp_replace(s.sentence_key, '\s+', '_', 'g') as sent_id,
    t.src_id as token,
    t.form,
    t.source_lemma,
    t.lemma
from {{ ref('mart_protocol_fold_tokens') }} as t
inner join {{ ref('mart_protocol_fold_sentences') }} as s on t.fold = s.fold and t.sentence_uid = s.sentence_uid
where t.fold = $fold and s.is_kept and not t.is_punct and not coalesce(regexp_full_match(t.lemma, $clean), false)
order by s.path, s.sentence_pos, t.token_pos
