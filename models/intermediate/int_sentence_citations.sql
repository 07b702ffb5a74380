-- Where the source cites every upstream sentence (SPEC §2): its passage, the CTS URN of its
-- document where the source gives the work, and the two joined as `cts_urn`. Grain: one row per
-- upstream sentence. Passage: AGDT, Gorman, Pedalion, Harrington @subdoc; UD PROIEL the first
-- token's MISC `Ref=`; UD PTNK chapter:verse from the `# sent_id`; none in UD Perseus. Document
-- URN: AGDT, Gorman, Harrington the `urn:cts:` of @document_id; Pedalion from its TLG
-- author-work code (0019-001 → urn:cts:greekLit:tlg0019.tlg001); UD Perseus from the
-- `# newdoc id` (tlg0003.tlg001.perseus-grc1...); none in UD PROIEL and UD PTNK.
with

sentences as (
    {{ union_staged('sentences') }}
),

ud_proiel_tokens as (select * from {{ ref('stg_ud_proiel__tokens') }}),

first_tokens as (
    select
        sentence_uid,
        cite
    from ud_proiel_tokens
    where token_pos = 1
),

citations as (
    select
        s.sentence_uid,
        case
            when s.project in ('agdt', 'gorman', 'pedalion', 'harrington') then s.subdoc
            when s.project = 'ud_proiel' then nullif(t.cite, '')
            when s.project = 'ud_ptnk'
                then nullif(regexp_extract(s.upstream_sentence_id, '-(\d+:\d+(?:-\d+)?)-', 1), '')
        end as passage,
        case
            when s.project = 'agdt' then regexp_extract(s.document_id, 'urn:cts:[^ ]+')
            when s.project in ('gorman', 'harrington') then nullif(regexp_extract(s.document_id, 'urn:cts:[^ ]+'), '')
            when s.project = 'pedalion' and regexp_matches(s.document_id, '^\d{4}-\d{3}$')
                then 'urn:cts:greekLit:tlg' || s.document_id[1:4] || '.tlg' || s.document_id[6:8]
            when s.project = 'ud_perseus'
                then 'urn:cts:greekLit:' || regexp_extract(s.document_id, '^(tlg\d+\.tlg\d+\.[a-z]+-grc\d+)', 1)
        end as document_urn
    from sentences as s
    left join first_tokens as t on s.sentence_uid = t.sentence_uid
),

final as (
    select
        sentence_uid,
        passage,
        document_urn,
        case
            when document_urn is not null and passage is not null then document_urn || ':' || passage
            else document_urn
        end as cts_urn
    from citations
)

select * from final
