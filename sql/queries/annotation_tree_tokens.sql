-- Token rows of the `native` or `source` annotation view (sphragis.evaluation.annotations) for
-- the sentences of `annotation_wanted`, from the tree registered as
-- `annotation_tree` (int_tree_tokens, or int_native_tree_tokens to keep punctuation).
-- native: tag-derived UPOS, XPOS = normalized tag, FEATS = feats_full (SPEC §3-§4);
-- source: the UD treebank's own UPOS, XPOS and FEATS. FORM = NFC source form, whitespace trimmed
-- and inner runs one space; where the registered `annotation_overrides` gives a token a form or a
-- lemma (an evaluation fold's reading and repaired lemma), that one instead. Parameter: $view
-- ('native' or 'source'). NULL renders as '_'.
select
    t.sentence_uid,
    t.i,
    coalesce(o.form, nfc_normalize(regexp_replace(trim(k.form), '\s+', ' ', 'g'))) as form,
    coalesce(o.lemma, m.lemma) as lemma,
    case $view when 'native' then m.upos when 'source' then m.upos_source end as upos,
    case $view when 'native' then m.tag when 'source' then m.postag end as xpos,
    case $view when 'native' then m.feats_full when 'source' then m.feats_source end as feats,
    t.head,
    t.deprel_ud as deprel
from annotation_tree as t
inner join {{ ref('int_tokens') }} as k on t.sentence_uid = k.sentence_uid and t.token_pos = k.token_pos
inner join {{ ref('int_token_morphology') }} as m on t.sentence_uid = m.sentence_uid and t.token_pos = m.token_pos
left join annotation_overrides as o on t.sentence_uid = o.sentence_uid and t.token_pos = o.token_pos
where t.sentence_uid in (select w.sentence_uid from annotation_wanted as w)
