-- Candidate sentences of the training treebank (seed 001 "Leakage controls"): every
-- sentence of the projects in var('treebank_projects'), with what the exclusion rules and the
-- cross-project dedup read: its stable id, dedup key (SPEC §7, from int_units), work and curation
-- decision (SPEC §6), source priority (SPEC §7) and the size of its native tree with punctuation
-- (int_native_tree_tokens). Grain: one row per candidate sentence.
with

sentences as (select * from {{ ref('int_sentences') }}),

units as (select * from {{ ref('int_units') }}),

curated as (select * from {{ ref('int_curated_sentences') }}),

priority as (select * from {{ ref('projects') }}),

native_tree as (select * from {{ ref('int_native_tree_tokens') }}),

projects as (
    select unnest({{ var('treebank_projects') }}::varchar[]) as project
),

tree_sizes as (
    select
        sentence_uid,
        count(*) as n_tokens,
        count(*) filter (where deprel_ud = 'punct') as n_punct
    from native_tree
    group by sentence_uid
),

final as (
    select
        s.sentence_uid,
        -- a CoNLL-U sent_id has no whitespace (UD validator): runs of it become '_'
        regexp_replace(s.sentence_key, '\s+', '_', 'g') as sent_id,
        s.project,
        s.treebank_source,
        s.path,
        s.file_name,
        s.sentence_pos,
        s.upstream_sentence_id,
        s.snapshot,
        s.commit,
        s.license,
        u.dedup_key,
        c.author,
        c.work,
        c.work_id,
        c.decision,
        coalesce(c.is_retained, false) as is_retained,
        p.priority,
        coalesce(z.n_tokens, 0) as n_tokens,
        coalesce(z.n_punct, 0) as n_punct
    from sentences as s
    inner join projects as j on s.project = j.project
    inner join priority as p on s.project = p.project
    left join units as u on s.sentence_uid = u.sentence_uid
    left join curated as c on s.sentence_uid = c.sentence_uid
    left join tree_sizes as z on s.sentence_uid = z.sentence_uid
)

select * from final
