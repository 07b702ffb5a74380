-- Every upstream sentence of every project, with provenance and a CTS URN where the source
-- gives the work (SPEC §2). Grain: one row per raw_sentences row.
with

unioned as (
    {{ union_staged('sentences') }}
),

final as (
    select
        sentence_uid,
        project,
        treebank_source,
        snapshot,
        commit,
        upstream,
        license,
        file_id,
        path,
        file_name,
        sentence_pos,
        line,
        upstream_sentence_id,
        document_id,
        document_key,
        source_author,
        passage,
        document_urn,
        case
            when document_urn is not null and passage is not null then document_urn || ':' || passage
            else document_urn
        end as cts_urn,
        source_text,
        n_tokens
    from unioned
)

select * from final
