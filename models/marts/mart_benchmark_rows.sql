-- Every published row of the eight configurations sentence_{1,5,10,50} and
-- source_held_out_{1,5,10,50} with the export columns as real nested types (SPEC §9, seed 000
-- "Principal columns", "Column structure"). Grain: one row per (config, id).
--
-- A row is a list of units (1 for _1, k for _k) in constituent order; per unit: text (one string),
-- conllu (one sentence: the token list), cts_urn, passage, treebank_source, dedup_key (of that
-- unit's chosen parse) and native_syntax (its audit records, sentence = 1). source_records holds
-- every contributing record of every unit with `unit`, the 0-based index of the unit in `text`.
-- licenses: distinct and sorted over all records. Chunk rows: id = chunk_id; work and work_id are
-- the single work's, or for a mixed-work chunk chunk_works / chunk_work_ids joined with '; ';
-- genre is the constituents' genre (the majority, ties → 'prose', if an author mixes genres).
-- _1 rows: id = row_id, chunk columns NULL. held_out_source only on source_held_out_*.
-- row_order: 1-based within (config, split), by author then chunk_seq (_1: by author, work,
-- work_id, textual order — the order the chunks are cut in).
with

split_rows as (select * from {{ ref('mart_split_rows') }}),
chunks as (select * from {{ ref('mart_chunks') }}),
eligible as (select * from {{ ref('int_eligible_sentences') }}),

units as (
    select
        row_id,
        text,
        [tokens] as conllu_unit,
        cts_urn,
        passage,
        treebank_source,
        dedup_key,
        native_syntax,
        source_records,
        licenses,
        genre,
        -- the chosen parse's record is source_records[1] (int_eligible_sentences test)
        struct_pack(
            id := row_id,
            project := project,
            path := source_records[1].path,
            upstream_sentence_id := source_records[1].upstream_sentence_id,
            cts_urn := cts_urn,
            passage := passage
        ) as provenance
    from eligible
),

atomic_members as (
    select
        r.track,
        {{ config_name('r.track', '1') }} as config,
        r.split,
        r.row_id as id,
        r.author,
        row_number() over (
            partition by r.track, r.author, r.split order by r.work, r.work_id, r.text_order
        ) as seq,
        0 as unit,
        r.row_id,
        r.held_out_source
    from split_rows as r
),

chunk_members as (
    select
        c.track,
        c.config,
        c.split,
        c.chunk_id as id,
        c.author,
        c.chunk_seq as seq,
        m.unit - 1 as unit,
        m.row_id,
        h.held_out_source
    from chunks as c
    cross join unnest(c.constituent_ids) with ordinality as m (row_id, unit)
    left join split_rows as h on c.track = h.track and m.row_id = h.row_id
),

members as (
    select * from atomic_members
    union all
    select * from chunk_members
),

aggregated as (
    select
        m.config,
        m.track,
        m.split,
        m.id,
        m.author,
        min(m.seq) as seq,
        list(u.text order by m.unit) as text,
        list(u.conllu_unit order by m.unit) as conllu,
        list(u.cts_urn order by m.unit) as cts_urn,
        list(u.passage order by m.unit) as passage,
        list(u.treebank_source order by m.unit) as treebank_source,
        list(u.dedup_key order by m.unit) as dedup_key,
        list(u.native_syntax order by m.unit) as native_syntax,
        flatten(list(
            list_transform(
                u.source_records,
                lambda r: struct_pack(
                    unit := m.unit,
                    project := r.project,
                    treebank_source := r.treebank_source,
                    snapshot := r.snapshot,
                    revision := r.revision,
                    url := r.url,
                    license := r.license,
                    path := r.path,
                    upstream_sentence_id := r.upstream_sentence_id,
                    sentence_uid := r.sentence_uid,
                    passage := r.passage,
                    syntax_scheme := r.syntax_scheme
                )
            )
            order by m.unit
        )) as source_records,
        list_sort(list_distinct(flatten(list(u.licenses)))) as licenses,
        list(u.provenance order by m.unit) as constituent_provenance,
        count(*) filter (where u.genre = 'verse') as verse_units,
        count(*) filter (where u.genre = 'prose') as prose_units,
        min(m.held_out_source) as held_out_source
    from members as m
    inner join units as u on m.row_id = u.row_id
    group by m.config, m.track, m.split, m.id, m.author
),

final as (
    select
        a.config,
        a.track,
        a.split,
        row_number() over (partition by a.config, a.split order by a.author, a.seq)::integer as row_order,
        a.id,
        a.author,
        coalesce(r.work, array_to_string(c.chunk_works, '; ')) as work,
        coalesce(r.work_id, nullif(array_to_string(c.chunk_work_ids, '; '), '')) as work_id,
        case when a.verse_units > a.prose_units then 'verse' else 'prose' end as genre,
        a.text,
        a.conllu,
        a.cts_urn,
        a.passage,
        a.treebank_source,
        a.dedup_key,
        a.native_syntax,
        a.source_records,
        a.licenses,
        c.chunk_size,
        c.chunk_target_size,
        c.constituent_ids,
        case when c.chunk_id is not null then a.constituent_provenance end as constituent_provenance,
        c.chunk_work_ids,
        c.chunk_works,
        c.chunk_is_mixed_work,
        a.held_out_source
    from aggregated as a
    left join split_rows as r on a.config like '%\_1' escape '\' and a.track = r.track and a.id = r.row_id
    left join chunks as c on a.config = c.config and a.id = c.chunk_id
)

select * from final
