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

{%- macro raw_tokens_of(project) -%}
{#- One project's raw token rows (raw_tokens of its files' sentences). -#}
select t.*
from {{ source('raw', 'raw_tokens') }} as t
inner join {{ source('raw', 'raw_sentences') }} as s on t.sentence_uid = s.sentence_uid
inner join {{ source('raw', 'raw_files') }} as f on s.file_id = f.file_id
where f.project = '{{ project }}'
{%- endmacro %}

{%- macro xml_is_artificial() -%}
{#- An XML word is an artificial (elliptic or inserted) node: it has @artificial or @insertion_id. -#}
coalesce(attrs['artificial'] is not null or attrs['insertion_id'] is not null, false)
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
    NULL; everything else stays in attrs. A word with @artificial or @insertion_id is an artificial
    (elliptic) node. A multi-layer XML format (papygreek_xml: seed layer_attributes) takes the
    form, lemma, postag, relation and head of the registry's published_layer from its attributes
    (every layer: macro stg_words). CoNLL-U rows (conllu): `_` becomes NULL; multiword ranges and
    empty nodes are flagged, not dropped. -#}
{%- set row = var('projects') | selectattr('project', 'equalto', project) | first %}
{%- set conllu = row.format == 'conllu' %}
{%- set empty = "'_'" if conllu else "''" %}
{%- set col = {'form': 'form', 'lemma': 'lemma', 'postag': 'xpos', 'head': 'head', 'relation': 'deprel'} %}
{%- for a in var('layer_attributes') if a.format == row.format and a.layer == row.published_layer %}
    {%- if col.update({a.field: "attrs['" ~ a.attribute ~ "']"}) %}{% endif %}
{%- endfor %}
with

raw_tokens as (
    {{ raw_tokens_of(project) }}
),

renamed as (
    select
        '{{ project }}' as project,
        sentence_uid,
        token_pos,
        line,
        id as src_id,
        try_cast(id as integer) as token_num,
        {{ col.form }} as form,
        {{ "nullif(lemma, '_')" if conllu else col.lemma }} as lemma,
        nullif({{ col.postag }}, {{ empty }}) as postag,
        {{ "nullif(upos, '_')" if conllu else 'cast(null as varchar)' }} as upos,
        {{ "nullif(feats, '_')" if conllu else 'cast(null as varchar)' }} as feats,
        {{ col.head }} as head_src,
        try_cast({{ col.head }} as integer) as head_num,
        nullif({{ col.relation }}, {{ empty }}) as relation,
        {{ "nullif(misc, '_')" if conllu else 'cast(null as varchar)' }} as misc,
        {{ 'false' if conllu else xml_is_artificial() }} as is_artificial,
        {{ "contains(id, '-')" if conllu else 'false' }} as is_multiword,
        {{ "contains(id, '.')" if conllu else 'false' }} as is_empty_node,
        {{ "regexp_extract(misc, '(?:^|\\|)Ref=([^|]*)', 1)" if conllu else "attrs['cite']" }} as cite,
        {{ 'cast(null as map(varchar, varchar))' if conllu else 'attrs' }} as attrs
    from raw_tokens
)

select * from renamed
{%- endmacro %}

{%- macro stg_words(project, extra_columns={}) -%}
{#- One project's words with every annotated layer of its multi-layer format side by side (seed
    layer_attributes, var('layer_attributes')): `<layer>_<field>` for each layer and field (form,
    lemma, postag, relation, head), verbatim (an empty attribute is ''); `is_published` layer is
    the registry's published_layer, which stg_tokens publishes. extra_columns: name → expression
    over the raw token row (a word attribute under its own name). Grain: one row per word token. -#}
{%- set row = var('projects') | selectattr('project', 'equalto', project) | first %}
with

raw_tokens as (
    {{ raw_tokens_of(project) }}
),

renamed as (
    select
        '{{ project }}' as project,
        sentence_uid,
        token_pos,
        line,
        id as src_id,
        '{{ row.published_layer }}' as published_layer,
        {%- for a in var('layer_attributes') if a.format == row.format %}
        attrs['{{ a.attribute }}'] as {{ a.layer }}_{{ a.field }},
        {%- endfor %}
        {%- for name, expr in extra_columns.items() %}
        {{ expr }} as {{ name }},
        {%- endfor %}
        {{ xml_is_artificial() }} as is_artificial
    from raw_tokens
)

select * from renamed
{%- endmacro %}

{%- macro union_staged(entity) -%}
{#- Every project's staging model for <entity> ('sentences', 'tokens', or a source-specific one such
    as 'persons'), stacked by column name: the projects of the registry (seed projects, var
    `projects`) whose columns equal the keyword arguments (all of them without any), AGDT-scheme
    ones first, each group in priority order (a stable sort). At least one project must match. -#}
{%- set chosen = registry_keys(**kwargs).split(',') %}
{%- for p in var('projects') | sort(attribute='syntax_scheme') if p.project in chosen %}
{% if not loop.first %}union all by name
{% endif %}select * from {{ ref('stg_' ~ p.project ~ '__' ~ entity) }}
{%- endfor %}
{%- endmacro %}

{%- macro json_strings(json, path) -%}
{#- The JSON value at `path` as a list of trimmed strings: an array's items, or a one-item list of
    a scalar (a site configuration writes either); [] when absent. -#}
case
    when json_type({{ json }}, '{{ path }}') = 'ARRAY'
        then list_transform(json_extract_string({{ json }}, '{{ path }}[*]'), lambda x: trim(x))
    when json_extract_string({{ json }}, '{{ path }}') is not null then [trim(json_extract_string({{ json }}, '{{ path }}'))]
    else []
end
{%- endmacro %}

{%- macro stg_perseids_site_config(project) -%}
{#- The metadata file of a Perseids treebank site (registry file_metadata perseids_site_config: its
    `src/config.json`, raw_metadata_files) as rows: one per section of a publication of a
    collection, the file it shows (`xml`) with the publication's author, work and editors and the
    section's locus, as the site writes them (an author, work or editor list kept as a list; the
    strings trimmed). `copyright` is the site's license statement. -#}
with

files as (
    select * from {{ source('raw', 'raw_metadata_files') }}
    where project = '{{ project }}'
),

collections as (
    select
        f.project,
        f.path as metadata_path,
        json_extract_string(f.content, '$.copyright') as copyright,
        c.collection,
        c.collection_pos
    from files as f,
        unnest(json_extract(f.content, '$.collections[*]')) with ordinality as c (collection, collection_pos)
),

publications as (
    select
        c.*,
        p.publication,
        p.publication_pos
    from collections as c,
        unnest(json_extract(c.collection, '$.publications[*]')) with ordinality as p (publication, publication_pos)
),

sections as (
    select
        p.*,
        s.section,
        s.section_pos
    from publications as p,
        unnest(json_extract(p.publication, '$.sections[*]')) with ordinality as s (section, section_pos)
),

renamed as (
    select
        project,
        metadata_path,
        collection_pos::integer as collection_pos,
        publication_pos::integer as publication_pos,
        section_pos::integer as section_pos,
        json_extract_string(collection, '$.title') as collection_title,
        trim(json_extract_string(section, '$.xml')) as file_name,
        {{ json_strings('publication', '$.author') }} as author_parts,
        {{ json_strings('publication', '$.work') }} as work_parts,
        {{ json_strings('publication', '$.editors') }} as editors,
        nullif(trim(json_extract_string(section, '$.locus')), '') as locus,
        nullif(trim(json_extract_string(section, '$.notes')), '') as notes,
        nullif(trim(json_extract_string(section, '$.link')), '') as link,
        try_cast(json_extract_string(section, '$.chunks.start') as integer) as chunk_start,
        try_cast(json_extract_string(section, '$.chunks.end') as integer) as chunk_end,
        copyright
    from sections
)

select * from renamed
{%- endmacro %}

{%- macro file_elements_of(project, tag, depth) -%}
{#- One project's preamble elements `tag` at `depth` (raw_file_elements; depth 1: children of the
    root) with their file's project, path and name. -#}
select
    e.*,
    f.project,
    f.path,
    regexp_extract(f.path, '[^/]+$') as file_name
from {{ source('raw', 'raw_file_elements') }} as e
inner join {{ source('raw', 'raw_files') }} as f on e.file_id = f.file_id
where f.project = '{{ project }}' and e.tag = '{{ tag }}' and e.depth = {{ depth }}
{%- endmacro %}
