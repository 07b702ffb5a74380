-- Where the source cites every upstream sentence (SPEC §2): its passage, the CTS URN of its
-- document where the source gives the work, and the two joined as `cts_urn`, by the rules the
-- project registry names (passage_rule, urn_rule; the rules: macros passage and document_urn,
-- sql/macros/registry.sql). Grain: one row per upstream sentence.
with

sentences as (
    {{ union_staged('sentences') }}
),

registry as (select * from {{ ref('projects') }}),

staged_tokens as (
    {{ union_staged('tokens') }}
),

first_tokens as (
    -- the first token's citation (CoNLL-U MISC `Ref=`, XML @cite), read by rule first_token_cite
    select
        sentence_uid,
        cite
    from staged_tokens
    where token_pos = 1
),

line_ranges as (
    -- the first and last line of a sentence's words, of the projects whose passage rule reads them
    select
        sentence_uid,
        min_by(line_n, token_pos) as first_line,
        max_by(line_n, token_pos) as last_line
    from (
        select
            sentence_uid,
            token_pos,
            nullif(attrs['line_n'], '') as line_n
        from staged_tokens
        where {{ project_in('project', passage_rule='line_range') }}
    ) as t
    where line_n is not null
    group by sentence_uid
),

citations as (
    select
        s.sentence_uid,
        {{ passage('r.passage_rule', 's', 't.cite', "l.first_line || case when l.last_line <> l.first_line then '-' || l.last_line else '' end") }}
            as passage,
        {{ document_urn('r.urn_rule', 's') }} as document_urn
    from sentences as s
    inner join registry as r on s.project = r.project
    left join first_tokens as t on s.sentence_uid = t.sentence_uid
    left join line_ranges as l on s.sentence_uid = l.sentence_uid
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
