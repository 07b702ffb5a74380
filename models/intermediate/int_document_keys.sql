-- The works-registry document key of every upstream sentence (SPEC §6): the key its project's
-- registry rows (sql/seeds/works_registry.csv) are written under, from the staged sentences.
-- Grain: one row per upstream sentence. AGDT, Gorman, Harrington: the file name. Pedalion (files
-- can mix documents): file name + '#' + the sentence's @document_id (a TLG author-work code such
-- as 0019-001). UD Perseus: the `# newdoc id` (the AGDT file converted). UD PROIEL: the `# source`
-- work, chapter, book and NT chapter numbers removed. UD PTNK: the `# sent_id` book prefix
-- (e.g. Septuagint-Genesis). A project without a rule here gets NULL (the not_null test names it).
with

sentences as (
    {{ union_staged('sentences') }}
),

final as (
    select
        sentence_uid,
        project,
        case
            when project in ('agdt', 'gorman', 'harrington') then file_name
            when project = 'pedalion' then file_name || '#' || coalesce(document_id, '')
            when project = 'ud_perseus' then document_id
            when project = 'ud_proiel'
                then regexp_replace(
                    regexp_replace(regexp_replace(source_title, ', chapter \d+$', ''), ', Book \d+$', ''),
                    ' \d+$', ''
                )
            when project = 'ud_ptnk' then regexp_extract(upstream_sentence_id, '^(.*?)-\d+:', 1)
        end as document_key
    from sentences
)

select * from final
