-- Deduplication (SPEC §7): the records of an eligible group (int_eligible_records: retained
-- published units sharing a dedup_key) become one row whose parse comes from the highest-priority
-- project (then the smallest sentence_uid, i.e. upstream file and position order); every
-- contributing record is kept in source_records. Groups whose retained author labels conflict are
-- omitted (see int_dedup_groups). Grain: one row per eligible dedup_key.
--
-- The chosen parse's payload (text, tokens, native_syntax) is not copied here: it stays in
-- int_units, joined on sentence_uid by what needs it (the exporter's view mart_export_units).
-- Writing those token lists a second time cost more than any reader saves.
with

eligible_records as (select * from {{ ref('int_eligible_records') }}),

sentences as (select * from {{ ref('int_sentences') }}),

priority as (select * from {{ ref('projects') }}),

records as (
    select
        r.*,
        s.treebank_source,
        s.snapshot,
        s.commit,
        s.upstream,
        s.license,
        s.path,
        s.sentence_key,
        s.file_name,
        s.sentence_pos,
        s.upstream_sentence_id,
        s.document_key,
        s.cts_urn,
        s.passage,
        p.priority,
        p.syntax_scheme
    from eligible_records as r
    inner join sentences as s on r.sentence_uid = s.sentence_uid
    inner join priority as p on r.project = p.project
),

ranked as (
    select
        *,
        row_number() over (partition by dedup_key order by priority, sentence_uid) as rank_in_group
    from records
),

-- noqa: disable=RF03
-- (lambda parameters read as qualified references)
provenance as (
    -- the records sorted by (priority, sentence_uid), unique in a group: list_sort of structs
    -- that lead with those keys (cheaper than ordered aggregates)
    select
        dedup_key,
        list_transform(
            list_sort(
                list(
                    struct_pack(
                        priority := priority,
                        sentence_uid := sentence_uid,
                        record := struct_pack(
                            project := project,
                            treebank_source := treebank_source,
                            snapshot := snapshot,
                            revision := commit,
                            url := upstream,
                            license := license,
                            path := path,
                            upstream_sentence_id := upstream_sentence_id,
                            sentence_uid := sentence_uid,
                            passage := passage,
                            syntax_scheme := syntax_scheme
                        )
                    )
                )
            ),
            lambda r: r.record  -- noqa: RF02
        ) as source_records,
        list_sort(list(distinct license)) as licenses,
        list_sort(list(distinct project)) as projects,
        count(*) as n_records
    from ranked
    group by dedup_key
),

-- noqa: enable=RF03
chosen as (
    select * from ranked
    where rank_in_group = 1
),

final as (
    select
        c.sentence_key as row_id,
        {{ published_id('c.dedup_key', 'sentence') }} as published_id,
        c.dedup_key,
        c.sentence_uid,
        c.project,
        c.treebank_source,
        c.author,
        c.work,
        c.work_id,
        c.genre,
        coalesce(
            c.cts_urn, case when c.work_id is not null then 'urn:cts:greekLit:' || c.work_id end
            || coalesce(':' || c.passage, '')
        ) as cts_urn,
        c.passage,
        p.source_records,
        p.licenses,
        p.projects,
        p.n_records,
        c.document_key,
        c.file_name,
        c.sentence_pos
    from chosen as c
    inner join provenance as p on c.dedup_key = p.dedup_key
)

select * from final
