-- The bucket label of every sentence of a gold file (sphragis eval score --by; SPEC §6 registry,
-- §12): per upstream sent_id, the smallest works_registry $by value (genre or author) of its
-- document and how many distinct values it has (more than one: the sent_id is ambiguous).
-- Parameters: $by ('genre' or 'author'), $project, $path (a fold's file, or NULL for any file of
-- the project), $sent_ids (the sent_ids to look up, or NULL for every sentence).
with

sentences as (select * from {{ ref('int_sentences') }}),

registry as (select * from {{ ref('works_registry') }}),

labelled as (
    select
        s.upstream_sentence_id,
        case $by when 'genre' then r.genre when 'author' then r.author end as label
    from sentences as s
    inner join registry as r on s.project = r.project and s.document_key = r.document_key
    where
        s.project = $project
        and ($path is null or s.path = $path)
        and ($sent_ids is null or list_contains($sent_ids, s.upstream_sentence_id))
        and s.upstream_sentence_id is not null
)

select
    upstream_sentence_id,
    min(label) as label,
    count(distinct label) as n_labels
from labelled
where label is not null
group by upstream_sentence_id
order by upstream_sentence_id
