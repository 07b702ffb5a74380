-- Every project's parse of every upstream sentence: one row per token (syntactic word: not a
-- CoNLL-U multiword range, not an empty node) of every sentence of every project, with where it
-- comes from (project, author, work, sentence_key, upstream sent_id, passage, CTS URN), the values
-- as the source wrote them (*_raw), the normalized and published values (SPEC §3–§5.1), its head's
-- lemma/UPOS/DEPREL and its dependents by relation in the published tree, the kept sentence it is a
-- parse of (SPEC §6–§7: kept_sentence_key, is_chosen_parse) and whether, and in which
-- configurations and splits, that sentence is published (SPEC §8). A sentence that several
-- projects annotate is here once per project: `tokens` holds each kept sentence once.
-- Grain: one row per (sentence_uid, token_pos).
with

tokens_raw as (select * from {{ ref('int_tokens') }}),

sentences as (select * from {{ ref('int_sentences') }}),

curated as (select * from {{ ref('int_curated_sentences') }}),

morphology as (select * from {{ ref('int_token_morphology') }}),

token_forms as (select * from {{ ref('int_token_forms') }}),

published_tokens as (select * from {{ ref('int_published_tokens') }}),

eligible as (select * from {{ ref('int_eligible_sentences') }}),

eligible_records as (select * from {{ ref('int_eligible_records') }}),

split_rows as (select * from {{ ref('mart_split_rows') }}),

benchmark_rows as (select * from {{ ref('mart_benchmark_rows') }}),

-- each published token's dependents by relation (histogram: a MAP deprel -> count)
dependents as (
    select
        sentence_uid,
        head,
        histogram(deprel) as dependents_by_deprel,
        count(*) as n_dependents
    from published_tokens
    group by sentence_uid, head
),

-- FEATS as a MAP, computed once per distinct FEATS string
feats_maps as (
    select
        feats,
        map_from_entries(
            list_transform(
                string_split(feats, '|'),
                lambda x: struct_pack(k := split_part(x, '=', 1), v := split_part(x, '=', 2))
            )
        ) as feats_map
    from (
        select distinct feats
        from morphology
        where feats is not null
    ) as distinct_feats
),

-- every (config, split) whose rows hold the sentence's dedup group
published_in as (
    select
        s.dedup_key,
        list(
            distinct struct_pack(config := b.config, split := b.split)
            order by struct_pack(config := b.config, split := b.split)
        ) as published_in
    from benchmark_rows as b,
        unnest(b.row_ids) as u (row_id)
    inner join split_rows as s on b.track = s.track and u.row_id = s.row_id
    group by s.dedup_key
),

final as (
    select
        w.sentence_uid,
        se.sentence_key,
        w.token_pos,
        w.project,
        se.treebank_source,
        c.author,
        c.work,
        c.work_id,
        c.genre,
        c.decision,
        c.is_retained,
        se.document_key,
        se.upstream_sentence_id as sent_id,
        se.passage,
        se.cts_urn,
        se.path,
        w.src_id as token_id_raw,
        w.form as form_raw,
        w.lemma as lemma_raw,
        w.postag as tag_raw,
        w.upos as upos_raw,
        w.feats as feats_raw,
        w.head_src as head_raw,
        w.relation as deprel_raw,
        m.tag,
        f.form,
        m.lemma,
        m.upos,
        m.feats,
        m.feats_full,
        p.i,
        p.head,
        p.deprel,
        p.deprel_ud,
        m.is_punct as is_punctuation,
        w.is_artificial,
        p.i is not null as is_published_token,
        e.row_id as kept_sentence_key,
        coalesce(e.sentence_uid = w.sentence_uid, false) as is_chosen_parse,
        fm.feats_map,
        h.lemma as head_lemma,
        h.upos as head_upos,
        h.deprel as head_deprel,
        coalesce(d.n_dependents, 0) as n_dependents,
        coalesce(d.dependents_by_deprel, map()) as dependents_by_deprel,
        pi.published_in is not null as is_published,
        coalesce(pi.published_in, []) as published_in
    from tokens_raw as w
    inner join sentences as se on w.sentence_uid = se.sentence_uid
    inner join curated as c on w.sentence_uid = c.sentence_uid
    inner join morphology as m on w.sentence_uid = m.sentence_uid and w.token_pos = m.token_pos
    inner join token_forms as f on w.sentence_uid = f.sentence_uid and w.token_pos = f.token_pos
    left join published_tokens as p on w.sentence_uid = p.sentence_uid and w.token_pos = p.token_pos
    left join published_tokens as h on p.sentence_uid = h.sentence_uid and p.head = h.i
    left join dependents as d on p.sentence_uid = d.sentence_uid and p.i = d.head
    left join feats_maps as fm on m.feats = fm.feats
    left join eligible_records as er on w.sentence_uid = er.sentence_uid
    left join eligible as e on er.dedup_key = e.dedup_key
    left join published_in as pi on er.dedup_key = pi.dedup_key
    where w.is_syntactic_word
)

select * from final
