{#- SPEC §7 deduplication key, shared by the build's key (int_units) and the counterfactual keys of
    the reconciliation (int_reconciliation_groups). -#}

{%- macro dedup_key(text) -%}
{#- `text` → dedup key: NFD with the combining marks dropped (strip_accents), lowercase, Unicode
    letters only (no spaces), final sigma → σ (SPEC §7) -#}
replace(regexp_replace(lower(strip_accents({{ text }})), '[^\p{L}]', '', 'g'), 'ς', 'σ')
{%- endmacro %}
