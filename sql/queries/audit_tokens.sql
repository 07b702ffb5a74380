-- The markup columns of every token of every audited unit (id, upos, feats, head, deprel; never
-- form or lemma), with its sentence index s_idx (1-based) in the unit.
with

sents as (
    select
        unit_idx,
        unnest(unit_conllu) as sent,
        generate_subscripts(unit_conllu, 1) as s_idx
    from audit_units
),

toks as (
    select
        unit_idx,
        s_idx,
        unnest(sent) as tok
    from sents
)

select
    toks.unit_idx,
    toks.s_idx,
    toks.tok.id,
    toks.tok.upos,
    toks.tok.feats,
    toks.tok.head,
    toks.tok.deprel
from toks
