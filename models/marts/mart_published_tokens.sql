-- Token-level view for analysts (SPEC §5, §11): one row per published token of every record of an
-- eligible dedup group (int_eligible_records). Every contributing record of a group is here, each
-- in its own project's annotation, not only the chosen parse: that is what lets the same author be
-- compared across annotators. Published values (upos, deprel, feats) sit next to the pre-merge
-- ones (upos_source, deprel_ud, feats_full).
--
-- is_chosen_parse: this record is the parse int_eligible_sentences published for the group.
-- is_first_in_project: the first record (smallest sentence_uid) of its group within its project;
-- the variation statistics (mart_rates) count only these, so a sentence a project holds twice is
-- counted once for that project. Grain: one row per (sentence_uid, i).
--
-- A view: each token row repeats its sentence's dedup_key (the letters of the whole sentence),
-- so a stored table grows with the square of a sentence's length; its readers select the columns
-- they need.
{{ config(materialized='view') }}
with

tree_tokens as (select * from {{ ref('int_tree_tokens') }}),

morphology as (select * from {{ ref('int_token_morphology') }}),

eligible_records as (select * from {{ ref('int_eligible_records') }}),

eligible as (select * from {{ ref('int_eligible_sentences') }}),

records as (
    select
        r.sentence_uid,
        r.dedup_key,
        r.project,
        r.author,
        r.work,
        r.genre,
        e.sentence_uid is not null as is_chosen_parse,
        row_number() over (partition by r.dedup_key, r.project order by r.sentence_uid) = 1 as is_first_in_project
    from eligible_records as r
    left join eligible as e on r.sentence_uid = e.sentence_uid
),

final as (
    select
        r.sentence_uid,
        t.token_pos,
        t.i,
        r.dedup_key,
        r.project,
        r.author,
        r.work,
        r.genre,
        m.upos,
        m.upos_source,
        t.deprel,
        t.deprel_ud,
        m.feats,
        m.feats_full,
        r.is_chosen_parse,
        r.is_first_in_project
    from records as r
    inner join tree_tokens as t on r.sentence_uid = t.sentence_uid
    inner join morphology as m on t.sentence_uid = m.sentence_uid and t.token_pos = m.token_pos
)

select * from final
