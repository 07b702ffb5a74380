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
-- work_id, textual order — the order the chunks are cut in). The order keys are computed on the
-- narrow tables and the nested payload is aggregated only for chunk rows (_1 rows are built
-- directly), which keeps the model fast.
with

split_rows as (select * from {{ ref('mart_split_rows') }}),
chunks as (select * from {{ ref('mart_chunks') }}),
eligible as (select * from {{ ref('int_eligible_sentences') }}),

units as (
    select
        row_id,
        genre,
        licenses,
        text,
        [tokens] as conllu,
        cts_urn,
        passage,
        treebank_source,
        dedup_key,
        native_syntax,
        source_records,
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

atomic_keys as (
    select
        track,
        {{ config_name('track', '1') }} as config,
        split,
        row_id,
        author,
        work,
        work_id,
        held_out_source,
        row_number() over (
            partition by track, split order by author, work, work_id, text_order
        ) as row_order
    from split_rows
),

author_held_out as (
    select distinct
        track,
        author,
        held_out_source
    from split_rows
),

chunk_keys as (
    select
        c.*,
        h.held_out_source,
        row_number() over (partition by c.config, c.split order by c.author, c.chunk_seq) as row_order
    from chunks as c
    left join author_held_out as h on c.track = h.track and c.author = h.author
),

-- noqa: disable=RF01,RF02
atomic_rows as (
    select
        k.config,
        k.track,
        k.split,
        k.row_order,
        k.row_id as id,
        k.author,
        k.work,
        k.work_id,
        u.genre,
        [u.text] as text,
        [u.conllu] as conllu,
        [u.cts_urn] as cts_urn,
        [u.passage] as passage,
        [u.treebank_source] as treebank_source,
        [u.dedup_key] as dedup_key,
        [u.native_syntax] as native_syntax,
        list_transform(
            u.source_records,
            lambda r: {{ unit_record('0', 'r') }}
        ) as source_records,
        u.licenses,
        k.held_out_source
    from atomic_keys as k
    inner join units as u on k.row_id = u.row_id
),

unit_index as (
    select
        row_id,
        row_number() over (order by row_id) as unit_idx
    from units
),

unit_array as (
    -- every unit's payload in one list, position = unit_idx: chunk rows pick their units from it
    -- by index, which is much faster in DuckDB than aggregating nested payloads per chunk
    select
        list(
            struct_pack(
                text := u.text,
                conllu := u.conllu,
                cts_urn := u.cts_urn,
                passage := u.passage,
                treebank_source := u.treebank_source,
                dedup_key := u.dedup_key,
                native_syntax := u.native_syntax,
                source_records := u.source_records,
                licenses := u.licenses,
                genre := u.genre,
                provenance := u.provenance
            )
            order by i.unit_idx
        ) as payloads
    from units as u
    inner join unit_index as i on u.row_id = i.row_id
),

chunk_indices as (
    select
        k.config,
        k.chunk_id,
        list(i.unit_idx order by m.unit) as unit_idxs
    from chunk_keys as k
    cross join unnest(k.constituent_ids) with ordinality as m (row_id, unit)
    inner join unit_index as i on m.row_id = i.row_id
    group by k.config, k.chunk_id
),

chunk_payloads as (
    select
        c.config,
        c.chunk_id,
        list_transform(c.unit_idxs, lambda i: a.payloads[i]) as unit_structs
    from chunk_indices as c
    cross join unit_array as a
),

chunk_rows as (
    select
        k.config,
        k.track,
        k.split,
        k.row_order,
        k.chunk_id as id,
        k.author,
        array_to_string(k.chunk_works, '; ') as work,
        nullif(array_to_string(k.chunk_work_ids, '; '), '') as work_id,
        case
            when len(list_filter(p.unit_structs, lambda x: x.genre = 'verse')) * 2 > len(p.unit_structs) then 'verse'
            else 'prose'
        end as genre,
        list_transform(p.unit_structs, lambda x: x.text) as text,
        list_transform(p.unit_structs, lambda x: x.conllu) as conllu,
        list_transform(p.unit_structs, lambda x: x.cts_urn) as cts_urn,
        list_transform(p.unit_structs, lambda x: x.passage) as passage,
        list_transform(p.unit_structs, lambda x: x.treebank_source) as treebank_source,
        list_transform(p.unit_structs, lambda x: x.dedup_key) as dedup_key,
        list_transform(p.unit_structs, lambda x: x.native_syntax) as native_syntax,
        flatten(list_transform(
            range(len(p.unit_structs)),
            lambda n: list_transform(p.unit_structs[n + 1].source_records, lambda r: {{ unit_record('n', 'r') }})
        )) as source_records,
        list_sort(list_distinct(flatten(list_transform(p.unit_structs, lambda x: x.licenses)))) as licenses,
        k.chunk_size,
        k.chunk_target_size,
        k.constituent_ids,
        list_transform(p.unit_structs, lambda x: x.provenance) as constituent_provenance,
        k.chunk_work_ids,
        k.chunk_works,
        k.chunk_is_mixed_work,
        k.held_out_source
    from chunk_keys as k
    inner join chunk_payloads as p on k.config = p.config and k.chunk_id = p.chunk_id
),
-- noqa: enable=RF01,RF02

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
    author,
    work,
    work_id,
    genre,
    text,
    conllu,
    cts_urn,
    passage,
    treebank_source,
    dedup_key,
    native_syntax,
    source_records,
    licenses,
    chunk_size,
    chunk_target_size,
    constituent_ids,
    constituent_provenance,
    chunk_work_ids,
    chunk_works,
    chunk_is_mixed_work,
    held_out_source
from final
