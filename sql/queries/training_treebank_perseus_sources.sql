-- UD Perseus dev/test sentences and their AGDT sources against the training treebank
-- (sphragis export-treebank manifest, issue 18; seed 001: 2,443 sentences resolved to AGDT): per
-- fold, the fold sentences, those resolved to an AGDT sentence, and how many of those AGDT
-- sentences the treebank excludes / writes.
select
    o.fold,
    count(*) as fold_sentences,
    count(*) filter (where o.resolved) as resolved_to_agdt,
    count(*) filter (where o.resolved and e.sentence_uid is not null) as resolved_excluded,
    count(*) filter (where o.resolved and s.sentence_uid is not null) as resolved_written
from mart_ud_perseus_agdt_overlap as o
left join mart_training_treebank_exclusions as e on o.agdt_sentence_uid = e.sentence_uid
left join mart_training_treebank as s on o.agdt_sentence_uid = s.sentence_uid
group by o.fold
order by o.fold
