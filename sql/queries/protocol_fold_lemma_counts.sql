-- How many lemmas the kept sentences of the protocol evaluation fold $fold emit, punctuation left
-- out, and how many are a clean Greek headword (the regular expression $clean) (sphragis folds'
-- manifest; seed 001 "Verse, out of domain").
select
    count(*) as emitted,
    count(*) filter (where coalesce(regexp_full_match(t.lemma, $clean), false)) as clean
from {{ ref('mart_protocol_fold_tokens') }} as t
inner join {{ ref('mart_protocol_fold_sentences') }} as s on t.fold = s.fold and t.sentence_uid = s.sentence_uid
where t.fold = $fold and s.is_kept and not t.is_punct
