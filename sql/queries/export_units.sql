-- The published units the exporter assembles its payload columns from (export/writer.py
-- fetch_units; SPEC §9): every row_id of mart_split_rows, with the text, token list and native
-- syntax of its chosen parse from int_units (int_eligible_sentences holds only its sentence_uid)
-- and the provenance of int_eligible_sentences. Grain: one row per unit, sorted by row_id.
select
    e.row_id,
    u.text,
    u.tokens,
    e.cts_urn,
    e.passage,
    e.treebank_source,
    e.dedup_key,
    u.native_syntax,
    e.source_records,
    e.licenses
from int_eligible_sentences as e
inner join int_units as u on e.sentence_uid = u.sentence_uid
where e.row_id in (select s.row_id from mart_split_rows as s)
order by e.row_id
