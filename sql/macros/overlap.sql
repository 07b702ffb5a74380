{#- Passage overlap (SPEC §7.1, issue 29): the measure's words and the class of a pair. -#}

{%- macro overlap_words(text) -%}
{#- Published `text` → the words the overlap measure compares, one space between them: NFD with
    the combining marks dropped (strip_accents), lowercase, final sigma → σ, letters only (as the
    SPEC §7 dedup_key, but keeping word boundaries). The edition variants of the seed
    edition_variants are applied afterwards (int_overlap_texts). -#}
trim(regexp_replace(
    regexp_replace(lower(strip_accents({{ text }})), '[^\p{L} ]', '', 'g'), ' +', ' ', 'g'
)).replace('ς', 'σ')
{%- endmacro %}

{%- macro apply_edition_variants(text, rules) -%}
{#- `text` with every (pattern, replacement) struct of the list `rules` applied in list order
    (regexp_replace, all matches): the seed edition_variants (int_overlap_texts). -#}
list_reduce({{ rules }}, lambda acc, v: regexp_replace(acc, v.pattern, v.replacement, 'g'), {{ text }})
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
