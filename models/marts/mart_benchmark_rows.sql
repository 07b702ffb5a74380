-- Every published row of the configurations sentence_{1,5,10,50}, source_held_out_{1,5,10,50}
-- and work_held_out_{1,5,10,50} (sql/seeds/benchmark_configs.csv): its key, order, labels and
-- chunk columns, but not the per-unit payload (SPEC §9, seed 000 "Principal columns", "Column structure"). Grain: one row per
-- (config, id).
--
-- A row is a list of units (1 for _1, k for _k) in constituent order. The exporter
-- (export/writer.py) assembles the nested payload columns from int_eligible_sentences and its
-- chosen parses in int_units (the view mart_export_units) with Arrow:
-- per unit text, conllu (one sentence: the token list), cts_urn, passage, treebank_source,
-- dedup_key (of that unit's chosen parse) and native_syntax (its audit records, sentence = 1);
-- source_records holds every contributing record of every unit with `unit`, the 0-based index of
-- the unit in `text`; licenses: distinct and sorted over all records. Keeping these out of the
-- mart keeps the build fast and small (SPEC §13).
--
-- Ids (SPEC §11: row ids reveal nothing): `id` is the published id (macro published_id: a salted hash
-- of the dedup key of a _1 row, of the constituent ids in order for a chunk), `source_id` the
-- warehouse's own (row_id of a _1 row, chunk_id of a chunk: project, file, author and split show
-- in them), `row_ids` the row_ids of the row's units in constituent order ([row_id] for _1), what
-- the exporter and the marts join the units on; `constituent_ids` are the constituents' published ids.
--
-- Chunk rows: work and work_id are the single work's, or for a mixed-work chunk
-- chunk_works / chunk_work_ids joined with '; ' (work_id NULL when no constituent has one); genre
-- is the constituents' genre (the majority, ties → 'prose', if an author mixes genres);
-- constituent_provenance is one struct per constituent (published id, source id, project, path and
-- upstream sentence id of the chosen parse, cts_urn, passage), in constituent order.
-- _1 rows: chunk columns NULL. held_out_source only on
-- source_held_out_*, held_out_works (see mart_split_rows) only on work_held_out_*.
-- row_order: 1-based within (config, split), by author then chunk_seq (_1: by author, work,
-- work_id, textual order — the order the chunks are cut in).
with

split_rows as (select * from {{ ref('mart_split_rows') }}),

chunks as (select * from {{ ref('mart_chunks') }}),

eligible as (select * from {{ ref('int_eligible_sentences') }}),

atomic_configs as (
    select
        config,
        track
    from {{ ref('benchmark_configs') }}
    where chunk_target_size = 1
),

units as (
    select
        row_id,
        published_id,
        genre,
        -- the chosen parse's record is source_records[1] (int_eligible_sentences test)
        struct_pack(
            id := published_id,
            source_id := row_id,
            project := project,
            path := source_records[1].path,
            upstream_sentence_id := source_records[1].upstream_sentence_id,
            cts_urn := cts_urn,
            passage := passage
        ) as provenance
    from eligible
),

author_held_out as (
    select
        track,
        author,
        any_value(held_out_source) as held_out_source,
        any_value(held_out_works) as held_out_works
    from split_rows
    group by track, author
),

atomic_rows as (
    select
        k.config,
        r.track,
        r.split,
        row_number() over (
            partition by r.track, r.split order by r.author, r.work, r.work_id, r.text_order
        ) as row_order,
        u.published_id as id,
        r.row_id as source_id,
        [r.row_id] as row_ids,
        r.author,
        r.work,
        r.work_id,
        u.genre,
        r.held_out_source,
        r.held_out_works
    from split_rows as r
    inner join atomic_configs as k on r.track = k.track
    inner join units as u on r.row_id = u.row_id
),

chunk_members as (
    select
        c.config,
        c.chunk_id,
        -- in constituent order: structs led by the (unique) unit index, sorted (cheaper than an
        -- ordered aggregate)
        list_transform(
            list_sort(list(struct_pack(unit := m.unit, provenance := u.provenance))),
            lambda x: x.provenance  -- noqa: RF01, RF02
        ) as constituent_provenance,
        list_transform(constituent_provenance, lambda p: p.id) as constituent_ids,  -- noqa: RF01, RF02
        count(*) filter (where u.genre = 'verse') as verse_units,
        count(*) as n_units
    from chunks as c
    cross join unnest(c.constituent_ids) with ordinality as m (row_id, unit)
    inner join units as u on m.row_id = u.row_id
    group by c.config, c.chunk_id
),

chunk_rows as (
    select
        c.config,
        c.track,
        c.split,
        row_number() over (partition by c.config, c.split order by c.author, c.chunk_seq) as row_order,
        {{ published_id("array_to_string(m.constituent_ids, ' ')", 'chunk') }} as id,
        c.chunk_id as source_id,
        c.constituent_ids as row_ids,
        c.author,
        array_to_string(c.chunk_works, '; ') as work,
        nullif(array_to_string(c.chunk_work_ids, '; '), '') as work_id,
        case when m.verse_units * 2 > m.n_units then 'verse' else 'prose' end as genre,
        c.chunk_size,
        c.chunk_target_size,
        m.constituent_ids,
        m.constituent_provenance,
        c.chunk_work_ids,
        c.chunk_works,
        c.chunk_is_mixed_work,
        h.held_out_source,
        h.held_out_works
    from chunks as c
    inner join chunk_members as m on c.config = m.config and c.chunk_id = m.chunk_id
    left join author_held_out as h on c.track = h.track and c.author = h.author
),

final as (
    select * from atomic_rows
    union all by name
    select * from chunk_rows
)

select
    config,
    track,
    split,
    row_order::integer as row_order,
    id,
    source_id,
    row_ids,
    author,
    work,
    work_id,
    genre,
    chunk_size,
    chunk_target_size,
    constituent_ids,
    constituent_provenance,
    chunk_work_ids,
    chunk_works,
    chunk_is_mixed_work,
    held_out_source,
    held_out_works
from final
