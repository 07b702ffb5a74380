-- Sentence counts of the build report's pipeline (SPEC §6-§8; export/metadata.py), in seed 000's
-- terms, over the projects the benchmark draws from (registry in_benchmark), for the whole build
-- (scope 'pipeline', key NULL), each project (scope 'project') and each
-- author (scope 'author': sentences with an author that curation did not exclude).
-- retained_after_curation = raw minus rejected at ingest and excluded by curation (the sentences of
-- mart_curation_exclusions); of these, no_published_tokens, the duplicates and the conflicts are
-- dropped before the eligible rows.
with

fates as (
    select * from {{ ref('mart_sentence_fates') }}
    where {{ project_in('project', in_benchmark='true') }}
),

scoped as (
    select
        'pipeline' as scope,
        null::varchar as key,
        fate
    from fates
    union all
    select
        'project' as scope,
        project as key,
        fate
    from fates
    union all
    select
        'author' as scope,
        author as key,
        fate
    from fates
    where author is not null and not starts_with(fate, 'excluded_')
),

final as (
    select
        scope,
        key,
        count(*) as raw_sentences,
        count(*) filter (where fate = 'rejected_at_ingest') as rejected_at_ingest,
        count(*) filter (where fate = 'no_published_tokens') as no_published_tokens,
        count(*) filter (where starts_with(fate, 'excluded_')) as excluded_by_curation,
        count(*) filter (
            where not starts_with(fate, 'excluded_') and fate <> 'rejected_at_ingest'
        ) as retained_after_curation,
        count(*) filter (where fate = 'duplicate') as removed_as_duplicates,
        count(*) filter (where fate = 'author_conflict') as omitted_for_author_conflict_rows,
        count(*) filter (where fate = 'empty_dedup_key') as omitted_empty_dedup_key,
        count(*) filter (where fate = 'eligible') as eligible
    from scoped
    group by scope, key
)

select * from final
