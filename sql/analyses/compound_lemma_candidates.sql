-- Which dictionary lemma do other projects give to an AGDT-lineage compound lemma (`κατά-ἕζομαι`)?
-- On aligned tokens of cross-project pairs (SPEC §5.1), every compound lemma of one side facing a
-- lemma without a hyphen on the other. The seed sql/seeds/compound_lemmas.csv holds the rows of
-- this query with exactly one dictionary lemma (derived from the build before it existed).
with

sides as (
    select
        lemma_a as compound,
        lemma_b as dictionary_lemma,
        project_a as compound_project,
        project_b as other_project
    from mart_cross_project_token_pairs
    union all
    select
        lemma_b as compound,
        lemma_a as dictionary_lemma,
        project_b as compound_project,
        project_a as other_project
    from mart_cross_project_token_pairs
)

select
    compound,
    dictionary_lemma,
    count(*) as aligned_tokens,
    list(distinct compound_project order by compound_project) as compound_projects,
    list(distinct other_project order by other_project) as other_projects
from sides
where
    regexp_full_match(compound, '[^-]+-[^-]+')
    and dictionary_lemma is not null
    and not contains(dictionary_lemma, '-')
group by compound, dictionary_lemma
order by compound, aligned_tokens desc
