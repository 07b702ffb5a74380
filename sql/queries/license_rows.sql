-- Per (treebank_source, license): published rows of the sentence-level configurations (the rows of
-- mart_split_rows) with a source record under that license; a row_id published on both tracks
-- counts once (LICENSES.md, dataset card).
with

records as (
    select
        e.row_id,
        unnest(e.source_records) as r
    from int_eligible_sentences as e
    semi join mart_split_rows as p on e.row_id = p.row_id
)

select
    r.treebank_source,
    r.license,
    count(distinct records.row_id) as rows
from records
group by all
order by all
