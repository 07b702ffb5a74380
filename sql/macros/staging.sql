{#- Shared staging logic. Staging only renames and types raw columns (SPEC §2 raw layer → stg). -#}

{%- macro raw_sentences_of(project) -%}
select
    f.project,
    f.treebank_source,
    f.snapshot,
    f.commit,
    f.upstream,
    f.license,
    f.file_id,
    f.path,
    regexp_extract(f.path, '[^/]+$') as file_name,
    s.sentence_uid,
    s.sentence_pos,
    s.line,
    s.upstream_sentence_id,
    nullif(trim(s.document_id), '') as document_id,
    nullif(trim(s.subdoc), '') as subdoc,
    s.attrs,
    s.comments,
    s.n_tokens
from {{ source('raw', 'raw_sentences') }} as s
inner join {{ source('raw', 'raw_files') }} as f on s.file_id = f.file_id
where f.project = '{{ project }}'
{%- endmacro %}

{%- macro stg_sentences(project, extra_columns={}) -%}
{#- One project's staged sentences: the raw sentence columns (raw_sentences_of), renamed and
    typed only. extra_columns: name → expression over them (a raw attribute or comment value under
    its own name), appended after n_tokens. The registry document key, the passage and the CTS URN
    are derived from these columns in int_document_keys and int_sentence_citations. -#}
with

sentences as (
    {{ raw_sentences_of(project) }}
),

renamed as (
    select
        *
        {%- for name, expr in extra_columns.items() %},
        {{ expr }} as {{ name }}
        {%- endfor %}
    from sentences
)

select * from renamed
{%- endmacro %}

{%- macro comment_value(key) -%}
nullif(trim(list_extract(list_filter(comments, lambda c: c like '# {{ key }} =%'), -1)[length('# {{ key }} =') + 1:]), '')
{%- endmacro %}

{%- macro stg_tokens(project) -%}
{#- One project's staged tokens, by the format its registry row names (var('projects')).
    AGDT-style XML words (agdt_xml): @postag → postag, @relation → relation, an empty value is
    NULL; everything else stays in attrs. CoNLL-U rows (conllu): `_` becomes NULL; multiword ranges
    and empty nodes are flagged, not dropped. -#}
{%- set conllu = (var('projects') | selectattr('project', 'equalto', project) | first).format == 'conllu' %}
{%- set empty = "'_'" if conllu else "''" %}
with

raw_tokens as (
    select t.*
    from {{ source('raw', 'raw_tokens') }} as t
    inner join {{ source('raw', 'raw_sentences') }} as s on t.sentence_uid = s.sentence_uid
    inner join {{ source('raw', 'raw_files') }} as f on s.file_id = f.file_id
    where f.project = '{{ project }}'
),

renamed as (
    select
        '{{ project }}' as project,
        sentence_uid,
        token_pos,
        line,
        id as src_id,
        try_cast(id as integer) as token_num,
        form,
        {{ "nullif(lemma, '_')" if conllu else 'lemma' }} as lemma,
        nullif(xpos, {{ empty }}) as postag,
        {{ "nullif(upos, '_')" if conllu else 'cast(null as varchar)' }} as upos,
        {{ "nullif(feats, '_')" if conllu else 'cast(null as varchar)' }} as feats,
        head as head_src,
        try_cast(head as integer) as head_num,
        nullif(deprel, {{ empty }}) as relation,
        {{ "nullif(misc, '_')" if conllu else 'cast(null as varchar)' }} as misc,
        {{ 'false' if conllu else "coalesce(attrs['artificial'] is not null, false)" }} as is_artificial,
        {{ "contains(id, '-')" if conllu else 'false' }} as is_multiword,
        {{ "contains(id, '.')" if conllu else 'false' }} as is_empty_node,
        {{ "regexp_extract(misc, '(?:^|\\|)Ref=([^|]*)', 1)" if conllu else "attrs['cite']" }} as cite,
        {{ 'cast(null as map(varchar, varchar))' if conllu else 'attrs' }} as attrs
    from raw_tokens
)

select * from renamed
{%- endmacro %}

{%- macro union_staged(entity) -%}
{#- Every project's staging model for <entity> ('sentences' or 'tokens'), stacked by column name:
    the projects of the registry (seed projects, var `projects`), AGDT-scheme ones first,
    each group in priority order (a stable sort). -#}
{%- for p in var('projects') | sort(attribute='syntax_scheme') %}
{% if not loop.first %}union all by name
{% endif %}select * from {{ ref('stg_' ~ p.project ~ '__' ~ entity) }}
{%- endfor %}
{%- endmacro %}
