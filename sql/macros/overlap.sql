{#- Passage overlap (SPEC §7.1): the measure's words and the class of a pair. -#}

{%- macro overlap_words(text) -%}
{#- Published `text` → the words the overlap measure compares, one space between them: NFD with
    the combining marks dropped (strip_accents), lowercase, final sigma → σ, letters only (as the
    SPEC §7 dedup_key, but keeping word boundaries). The edition variants of the seed
    edition_variants are applied afterwards (int_overlap_texts). -#}
trim(regexp_replace(
    regexp_replace(lower(strip_accents({{ text }})), '[^\p{L} ]', '', 'g'), ' +', ' ', 'g'
)).replace('ς', 'σ')
{%- endmacro %}

{%- macro apply_edition_variants(text) -%}
{#- `text` with every rule of var('edition_variants') (the seed edition_variants in variant_order)
    applied in order (regexp_replace, all matches), the patterns written as constants: DuckDB
    compiles a constant pattern once, a pattern read from a table on every call (int_overlap_texts). -#}
{%- set ns = namespace(sql=text) -%}
{%- for v in var('edition_variants') -%}
{%- set ns.sql = "regexp_replace(" ~ ns.sql ~ ", " ~ sql_literal(v.pattern) ~ ", " ~ sql_literal(v.replacement) ~ ", 'g')" -%}
{%- endfor -%}
{{ ns.sql }}
{%- endmacro %}

{%- macro edition_variant_rules() -%}
{#- var('edition_variants') as the LIST of STRUCT(pattern, replacement) that the seed
    edition_variants gives in variant_order (int_overlap_texts checks the two are equal). -#}
[
{%- for v in var('edition_variants') -%}
{{ ", " if not loop.first }}{'pattern': {{ sql_literal(v.pattern) }}, 'replacement': {{ sql_literal(v.replacement) }}}
{%- endfor -%}
]
{%- endmacro %}

{%- macro sql_literal(value) -%}
{#- A SQL string literal of `value` (quotes doubled), NULL for none. -#}
{{ "null" if value is none else "'" ~ (value | replace("'", "''")) ~ "'" }}
{%- endmacro %}

{%- macro overlap_class(is_edition, author_a, author_b, work_a, work_b, project_a, project_b) -%}
{#- Class of an overlapping pair (SPEC §7.1), first match wins: `edition` (the two keys differ only
    by edition variants of the seed edition_variants), `segmentation` (same author and work, two
    projects), `formula` (same author: one project, or another work), `quotation` (different
    authors; a pair with an unattributed side is `quotation` too). -#}
case
    when {{ is_edition }} then 'edition'
    when {{ author_a }} = {{ author_b }} and {{ work_a }} = {{ work_b }} and {{ project_a }} <> {{ project_b }}
        then 'segmentation'
    when {{ author_a }} = {{ author_b }} then 'formula'
    else 'quotation'
end
{%- endmacro %}

{%- macro form_sequence_words(forms) -%}
{#- The leakage key of seed 001 ("Leakage controls"): a sentence's NFC form sequence without its
    punctuation tokens (forms made only of Unicode punctuation and symbol characters). Two sentences
    leak into each other when form_sequences_match. -#}
list_filter({{ forms }}, lambda f: not regexp_full_match(f, '[\p{P}\p{S}]+'))
{%- endmacro %}

{%- macro form_sequences_match(a, b) -%}
{#- The match of two sentences with `forms` (NFC form sequence) and `words` (form_sequence_words of
    it) columns, relations `a` and `b`: equal words, and equal forms when there is no word (an
    all-punctuation sentence matches only itself). -#}
{{ a }}.words = {{ b }}.words and (len({{ b }}.words) > 0 or {{ a }}.forms = {{ b }}.forms)
{%- endmacro %}
