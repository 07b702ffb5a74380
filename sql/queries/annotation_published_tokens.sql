-- Token rows of the `published` annotation view (sphragis.evaluation.annotations): the
-- model-facing units of int_units (SPEC §5) for the sentences of `annotation_wanted`; XPOS is NULL (rendered '_').
select
    u.sentence_uid,
    t.tok.id as i,
    t.tok.form,
    t.tok.lemma,
    t.tok.upos,
    null::varchar as xpos,
    t.tok.feats,
    t.tok.head,
    t.tok.deprel
from {{ ref('int_units') }} as u, unnest(u.tokens) as t (tok)
where u.sentence_uid in (select w.sentence_uid from annotation_wanted as w)
