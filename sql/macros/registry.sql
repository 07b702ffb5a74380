{#- The project registry (SPEC §1.1): the seed `projects` (sql/seeds/projects.csv), rendered as
    var('projects') (sphragis.config.projects(); dbt reads the same list from dbt_project.yml).
    Models select projects by a registry column, never by name, and the rules a row names are
    written once each, here: a model switches on the rule name, and a rule name no branch knows
    stops the build (DuckDB's error()). -#}

{%- macro registry_keys() -%}
{#- The keys of the registered projects whose registry columns equal the keyword arguments (the
    values as the seed writes them: in_benchmark='true'), in SPEC §7 priority order, comma-separated
    (a macro renders text: `.split(',')` makes the Jinja list); empty when none. -#}
{%- set keys = [] -%}
{%- for p in var('projects') -%}
    {%- set ns = namespace(chosen=true) -%}
    {%- for column, value in kwargs.items() -%}
        {%- if p[column] != value -%}{%- set ns.chosen = false -%}{%- endif -%}
    {%- endfor -%}
    {%- if ns.chosen and keys.append(p.project) -%}{%- endif -%}
{%- endfor -%}
{{- keys | join(',') -}}
{%- endmacro %}

{%- macro project_in(expr) -%}
{#- A boolean SQL expression: `expr` (a project key) is one of the projects whose registry columns
    equal the keyword arguments (registry_keys); `false` when there is none (an empty IN list is no
    SQL). -#}
{%- set keys = registry_keys(**kwargs) -%}
{%- if keys -%}
{{ expr }} in ('{{ keys.split(',') | join("', '") }}')
{%- else -%}
false
{%- endif -%}
{%- endmacro %}

{%- macro unknown_rule(kind, rule) -%}
error('unknown {{ kind }} ' || coalesce({{ rule }}, 'NULL') || ' in the project registry sql/seeds/projects.csv')
{%- endmacro %}

{%- macro document_key(rule, s) -%}
{#- The works-registry document key of staged sentence `s` (SPEC §6) under registry rule `rule`
    (column document_key_rule):
      file_name                   the file name (one document per file)
      file_name_and_document_id   file name, '#', the sentence's @document_id (files that mix
                                  documents: a TLG author-work code such as 0019-001)
      newdoc_id                   the CoNLL-U `# newdoc id` (the AGDT file a UD treebank converted)
      source_title_work           the CoNLL-U `# source` work: chapter, book and NT chapter
                                  numbers removed
      sent_id_book                the `# sent_id` book prefix (Septuagint-Genesis) -#}
case {{ rule }}
    when 'file_name' then {{ s }}.file_name
    when 'file_name_and_document_id' then {{ s }}.file_name || '#' || coalesce({{ s }}.document_id, '')
    when 'newdoc_id' then {{ s }}.document_id
    when 'source_title_work'
        then regexp_replace(
            regexp_replace(regexp_replace({{ s }}.source_title, ', chapter \d+$', ''), ', Book \d+$', ''),
            ' \d+$', ''
        )
    when 'sent_id_book' then regexp_extract({{ s }}.upstream_sentence_id, '^(.*?)-\d+:', 1)
    else {{ unknown_rule('document_key_rule', rule) }}
end
{%- endmacro %}

{%- macro passage(rule, s, first_cite, lines) -%}
{#- The passage of staged sentence `s` (SPEC §2) under registry rule `rule` (column passage_rule):
      subdoc            the sentence's @subdoc
      first_token_cite  the first token's citation (`first_cite`: CoNLL-U MISC `Ref=`, XML @cite)
      sent_id_verse     chapter:verse from the `# sent_id` (Septuagint-Genesis-31:1-grc → 31:1)
      line_range        the lines of the document its words stand on (`lines`: their first and
                        last @line_n, a papyrus's line numbers: '3', '3-5')
      none              no passage -#}
case {{ rule }}
    when 'subdoc' then {{ s }}.subdoc
    when 'first_token_cite' then nullif({{ first_cite }}, '')
    when 'line_range' then {{ lines }}
    when 'sent_id_verse' then nullif(regexp_extract({{ s }}.upstream_sentence_id, '-(\d+:\d+(?:-\d+)?)-', 1), '')
    when 'none' then null
    else {{ unknown_rule('passage_rule', rule) }}
end
{%- endmacro %}

{%- macro document_urn(rule, s) -%}
{#- The CTS URN of the document of staged sentence `s` (SPEC §2) under registry rule `rule` (column
    urn_rule):
      document_id_urn                the `urn:cts:` of @document_id, NULL when it holds none
      document_id_urn_as_extracted   the same, '' when @document_id holds no URN (as the published
                                     rows of that project carry it)
      tlg_code_document_id           from a TLG author-work code (0019-001 →
                                     urn:cts:greekLit:tlg0019.tlg001), NULL for other ids
      newdoc_id_tlg                  from the `# newdoc id` (tlg0003.tlg001.perseus-grc1...)
      none                           no URN -#}
case {{ rule }}
    when 'document_id_urn' then nullif(regexp_extract({{ s }}.document_id, 'urn:cts:[^ ]+'), '')
    when 'document_id_urn_as_extracted' then regexp_extract({{ s }}.document_id, 'urn:cts:[^ ]+')
    when 'tlg_code_document_id'
        then case
            when regexp_matches({{ s }}.document_id, '^\d{4}-\d{3}$')
                then 'urn:cts:greekLit:tlg' || {{ s }}.document_id[1:4] || '.tlg' || {{ s }}.document_id[6:8]
        end
    when 'newdoc_id_tlg'
        then 'urn:cts:greekLit:' || regexp_extract({{ s }}.document_id, '^(tlg\d+\.tlg\d+\.[a-z]+-grc\d+)', 1)
    when 'none' then null
    else {{ unknown_rule('urn_rule', rule) }}
end
{%- endmacro %}

{%- macro trismegistos_id(rule, s, documentary_tm) -%}
{#- The Trismegistos (TM) number of the document of sentence `s` (an int_sentences row), as text,
    under registry rule `rule` (column trismegistos_rule):
      document_meta         the documentary registry's tm_id (`documentary_tm`, int_documentary_documents)
      numeric_document_id   the sentence's @document_id when it is all digits (a TM number)
      none                  none -#}
case {{ rule }}
    when 'document_meta' then cast({{ documentary_tm }} as varchar)
    when 'numeric_document_id' then case when regexp_full_match({{ s }}.document_id, '[0-9]+') then {{ s }}.document_id end
    when 'none' then null
    else {{ unknown_rule('trismegistos_rule', rule) }}
end
{%- endmacro %}

{%- macro registry_conversions() -%}
{#- The UD treebanks converted from a native one (registry converted_from): ud_project and the
    source_project its trees were converted from (UD Perseus from AGDT), as a VALUES list. -#}
{%- set pairs = var('projects') | rejectattr('converted_from', 'equalto', '') | list %}
select
    c.ud_project,
    c.source_project
from (
    values {% for p in pairs %}('{{ p.project }}', '{{ p.converted_from }}'){{ ', ' if not loop.last }}{% else %}(null::varchar, null::varchar){% endfor %}
) as c (ud_project, source_project)
where c.ud_project is not null
{%- endmacro %}
