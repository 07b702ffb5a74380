{#- Multi-layer formats (seed layer_attributes; registry published_layer): PapyGreek's diplomatic
    and regularised layers, compared in mart_layer_variation. -#}

{%- macro layer_fields() -%}
{#- The fields a layer annotates (form, lemma, postag, relation, head), comma-separated in seed
    order: `.split(',')` makes the Jinja list. -#}
{{- var('layer_attributes') | map(attribute='field') | unique | join(',') -}}
{%- endmacro %}

{%- macro layer_words() -%}
{#- Every word of every project with a published layer (stg_<project>__words) facing each other
    layer of its format: `published_<field>` and `other_<field>` for each field, as written, NFC,
    blanks trimmed, an empty value NULL. -#}
{%- set fields = layer_fields().split(',') %}
{%- set ns = namespace(first=true) %}
{%- for p in var('projects') if p.published_layer %}
{%- for other in var('layer_attributes') | selectattr('format', 'equalto', p.format) | map(attribute='layer') | unique
    if other != p.published_layer %}
{% if not ns.first %}union all
{% endif %}{% set ns.first = false %}select
    project,
    sentence_uid,
    token_pos,
    line,
    src_id,
    is_artificial,
    published_layer,
    '{{ other }}' as other_layer,
{%- for f in fields %}
    nullif(trim(nfc_normalize({{ p.published_layer }}_{{ f }})), '') as published_{{ f }},
    nullif(trim(nfc_normalize({{ other }}_{{ f }})), '') as other_{{ f }}{{ ',' if not loop.last }}
{%- endfor %}
from {{ ref('stg_' ~ p.project ~ '__words') }}
{%- endfor %}
{%- endfor %}
{%- endmacro %}

{%- macro layer_changes() -%}
{#- For each field, `<field>_change`: how the two layers relate on it: same, changed, or annotated
    in one layer only (only_published, only_other), or in none (absent). -#}
{%- for f in layer_fields().split(',') %}
case
    when published_{{ f }} is null and other_{{ f }} is null then 'absent'
    when other_{{ f }} is null then 'only_published'
    when published_{{ f }} is null then 'only_other'
    when published_{{ f }} = other_{{ f }} then 'same'
    else 'changed'
end as {{ f }}_change{{ ',' if not loop.last }}
{%- endfor %}
{%- endmacro %}

{%- macro layer_field_rows(relation) -%}
{#- `relation` (mart_layer_variation's rows) as one row per word and field: field, change,
    other_value, published_value. -#}
{%- for f in layer_fields().split(',') %}
{% if not loop.first %}union all
{% endif %}select
    project,
    published_layer,
    other_layer,
    '{{ f }}' as field,
    {{ f }}_change as change,
    other_{{ f }} as other_value,
    published_{{ f }} as published_value
from {{ relation }}
{%- endfor %}
{%- endmacro %}
