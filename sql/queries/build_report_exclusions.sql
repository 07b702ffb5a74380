-- Sentences and documents curation excluded, per reason (build report `exclusions`, SPEC §6).
select
    decision as reason,
    count(*) as sentences,
    count(distinct project || '|' || document_key) as documents
from int_curated_sentences
where not is_retained
group by decision
order by decision
