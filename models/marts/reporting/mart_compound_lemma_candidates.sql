-- Which dictionary lemma do other projects give to an AGDT-lineage compound lemma (`κατά-ἕζομαι`)?
-- On aligned tokens of cross-project pairs (SPEC §5.1), every compound lemma of one side facing a
-- lemma on the other (`is_candidate`: the other lemma has no hyphen, i.e. a dictionary lemma). The
-- seed sql/seeds/compound_lemmas.csv holds the candidates with exactly one dictionary lemma, derived
-- from the build before the seed existed; once mapped they no longer appear as candidates.
with

token_pairs as (select * from {{ ref('mart_cross_project_token_pairs') }}),

sides as (
    select
        lemma_a as compound,
        lemma_b as dictionary_lemma,
        project_a as compound_project,
        project_b as other_project
    from token_pairs
    union all
    select
        lemma_b as compound,
        lemma_a as dictionary_lemma,
        project_b as compound_project,
        project_a as other_project
    from token_pairs
),

final as (
    select
        compound,
        dictionary_lemma,
        not contains(dictionary_lemma, '-') as is_candidate,
        count(*) as aligned_tokens,
        list(distinct compound_project order by compound_project) as compound_projects,
        list(distinct other_project order by other_project) as other_projects
    from sides
    where
        regexp_full_match(compound, '[^-]+-[^-]+')
        and dictionary_lemma is not null
    group by compound, dictionary_lemma
)

select * from final
