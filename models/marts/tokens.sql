-- The analyst's token table (issue 32; docs/models.md): one row per token (syntactic word: not a
-- CoNLL-U multiword range, not an empty node) of every upstream sentence of every project, with
-- where it comes from (project, author, work, upstream sent_id, passage, CTS URN), the values as
-- the source wrote them (*_raw), the normalized and published values (SPEC §3–§5.1), its head's
-- lemma/UPOS/DEPREL, its dependents by relation, and whether, and in which configurations and
-- splits, its sentence is published (SPEC §7–§8: the record is one of the source_records of a
-- published row). Grain: one row per (sentence_uid, token_pos).
with

tokens_raw as (select * from {{ ref('int_tokens') }}),

sentences as (select * from {{ ref('int_sentences') }}),

curated as (select * from {{ ref('int_curated_sentences') }}),

morphology as (select * from {{ ref('int_token_morphology') }}),

token_forms as (select * from {{ ref('int_token_forms') }}),

tree_tokens as (select * from {{ ref('int_tree_tokens') }}),

units as (select * from {{ ref('int_units') }}),

eligible as (select * from {{ ref('int_eligible_sentences') }}),

eligible_records as (select * from {{ ref('int_eligible_records') }}),

split_rows as (select * from {{ ref('mart_split_rows') }}),

benchmark_rows as (select * from {{ ref('mart_benchmark_rows') }}),

words as (
    select *
    from tokens_raw
    where is_syntactic_word
),

-- the source's own head token, for tokens the published tree leaves out (duplicate ids: the first)
source_ids as (
    select
        sentence_uid,
        token_num,
        min(token_pos) as token_pos
    from words
    where token_num is not null
    group by sentence_uid, token_num
),

dependent_counts as (
    select
        sentence_uid,
        head,
        deprel,
        count(*) as n
    from tree_tokens
    group by sentence_uid, head, deprel
),

dependents as (
    select
        sentence_uid,
        head,
        map_from_entries(list(struct_pack(k := deprel, v := n) order by deprel)) as dependents_by_deprel,
        sum(n)::bigint as n_dependents
    from dependent_counts
    group by sentence_uid, head
),

-- the lemma, UPOS and published DEPREL of every token, as a head
head_tokens as (
    select
        m.sentence_uid,
        m.token_pos,
        m.lemma,
        m.upos,
        t.deprel
    from morphology as m
    left join tree_tokens as t on m.sentence_uid = t.sentence_uid and m.token_pos = t.token_pos
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
        unnest(coalesce(b.constituent_ids, [b.id])) as u (row_id)
    inner join split_rows as s on b.track = s.track and u.row_id = s.row_id
    group by s.dedup_key
),

joined as (
    select
        w.sentence_uid,
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
        t.i,
        t.head,
        t.deprel,
        t.deprel_ud,
        m.is_punct as is_punctuation,
        w.is_artificial,
        t.i is not null as is_published_token,
        ht.lemma as head_lemma,
        ht.upos as head_upos,
        ht.deprel as head_deprel,
        u.dedup_key,
        e.sentence_uid is not null as is_chosen_parse,
        coalesce(p.published_in, []) as published_in,
        coalesce(d.n_dependents, 0) as n_dependents,
        coalesce(d.dependents_by_deprel, map()) as dependents_by_deprel
    from words as w
    inner join sentences as se on w.sentence_uid = se.sentence_uid
    inner join curated as c on w.sentence_uid = c.sentence_uid
    inner join morphology as m on w.sentence_uid = m.sentence_uid and w.token_pos = m.token_pos
    inner join token_forms as f on w.sentence_uid = f.sentence_uid and w.token_pos = f.token_pos
    left join tree_tokens as t on w.sentence_uid = t.sentence_uid and w.token_pos = t.token_pos
    left join tree_tokens as h on t.sentence_uid = h.sentence_uid and t.head = h.i
    left join source_ids as sh on t.i is null and w.sentence_uid = sh.sentence_uid and w.head_num = sh.token_num
    left join units as u on w.sentence_uid = u.sentence_uid
    left join eligible as e on w.sentence_uid = e.sentence_uid
    left join eligible_records as er on w.sentence_uid = er.sentence_uid
    left join published_in as p on er.dedup_key = p.dedup_key
    left join dependents as d on t.sentence_uid = d.sentence_uid and t.i = d.head
    left join head_tokens as ht
        on w.sentence_uid = ht.sentence_uid and coalesce(h.token_pos, sh.token_pos) = ht.token_pos
),

final as (
    select
        * exclude (published_in, n_dependents, dependents_by_deprel, head_lemma, head_upos, head_deprel),
        map_from_entries(
            list_transform(
                string_split(feats, '|'),
                lambda x: struct_pack(k := split_part(x, '=', 1), v := split_part(x, '=', 2))
            )
        ) as feats_map,
        head_lemma,
        head_upos,
        head_deprel,
        n_dependents,
        dependents_by_deprel,
        len(published_in) > 0 as is_published,
        published_in
    from joined
)

select * from final
