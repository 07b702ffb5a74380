-- The bucket label of every kept sentence of a protocol evaluation fold (sphragis eval score --by on
-- a fold of sphragis folds; SPEC §6, §12): per sent_id as the fold's file writes it, its curated
-- $by value (genre or author; documentary texts have none). Parameters: $by, $fold.
select
    regexp_replace(s.sentence_key, '\s+', '_', 'g') as sent_id,
    case $by when 'genre' then c.genre when 'author' then c.author end as label,
    1 as n_labels
from {{ ref('mart_protocol_fold_sentences') }} as s
inner join {{ ref('int_curated_sentences') }} as c on s.sentence_uid = c.sentence_uid
where s.fold = $fold and s.is_kept and (case $by when 'genre' then c.genre when 'author' then c.author end) is not null
order by sent_id
