{#- SPEC §5.1 string rules shared by forms (int_token_forms) and lemmas (int_token_morphology).
    Each takes a SQL expression and the name of a CTE-held list built from its seed. -#}

{%- macro seed_lookalike_pairs() -%}
{#- the seed latin_lookalikes as one list of structs (select it in a CTE named lookalike_pairs) -#}
select list(struct_pack(latin := latin, greek := greek, greek_word_final := greek_word_final)) as pairs from {{ ref('latin_lookalikes') }}
{%- endmacro %}

{%- macro seed_editorial_marks() -%}
select list(mark order by length(mark) desc, mark) as marks from {{ ref('editorial_marks') }}
{%- endmacro %}

{%- macro seed_elision_marks() -%}
{#- the seed elision_marks as one list of characters (select it in a CTE named elision_marks) -#}
select list(chr(('0x' || substr(codepoint, 3))::integer)) as marks from {{ ref('elision_marks') }}
{%- endmacro %}

{%- macro remove_editorial_marks(expr, marks) -%}
{#- only strings with a non-letter, non-mark character can hold a mark: the others skip the list -#}
case
    when regexp_matches({{ expr }}, '[^\p{L}\p{M}]')
        then list_reduce({{ marks }}, lambda acc, m: replace(acc, m, ''), {{ expr }})  -- noqa: RF02
    else {{ expr }}
end
{%- endmacro %}

{%- macro has_greek_letter(expr) -%}
regexp_matches(regexp_replace({{ expr }}, '[^\p{L}]', '', 'g'), '\p{Greek}')
{%- endmacro %}

{%- macro map_lookalikes(expr, pairs) -%}
{#- in a string with a Greek letter, each Latin look-alike letter → its Greek letter (the word-final
    variant before a non-letter, non-mark character or the end). One character at a time: each
    `latin` of the seed is one letter and each replacement a Greek letter (its tests in
    models/_seeds.yml), so this equals replacing the pairs one after another; every regex here is
    a constant, compiled once (a pattern built per pair is compiled per row). -#}
case
    when regexp_matches({{ expr }}, '[A-Za-z]') and {{ has_greek_letter(expr) }}
        then array_to_string(
            list_transform(
                regexp_extract_all({{ expr }}, '(?s).'),
                lambda c, i: coalesce(  -- noqa: RF02
                    case
                        when coalesce(regexp_matches(regexp_extract_all({{ expr }}, '(?s).')[i + 1], '[\p{L}\p{M}]'), false)
                            then list_filter({{ pairs }}, lambda p: p.latin = c)[1].greek  -- noqa: RF02
                        else list_filter({{ pairs }}, lambda p: p.latin = c)[1].greek_word_final  -- noqa: RF02
                    end,
                    c
                )
            ),
            ''
        )
    else {{ expr }}
end
{%- endmacro %}

{%- macro keep_greek(expr, extra='') -%}
{#- drop every character that is not a Greek letter, a combining mark or U+2019 (plus `extra`,
    a regex class fragment such as '\-'), then combining marks left at the start (no base letter) -#}
regexp_replace(
    regexp_replace(
        regexp_replace({{ expr }}, '[^\p{L}\p{M}\x{2019}{{ extra }}]', '', 'g'),
        '[^\p{Greek}\p{M}\x{2019}{{ extra }}]', '', 'g'
    ),
    '^\p{M}+', ''
)
{%- endmacro %}

{%- macro lexicon_key(expr) -%}
{#- the spelling a word is looked up by in the source lexicon (int_source_lexicon, SPEC §5.1): NFC,
    every elision mark (seed elision_marks' spacing ones, and a word-final combining psili) → U+2019,
    every character that is not a Greek letter, a combining mark or U+2019 dropped (keep_greek),
    lowercased with lower_grc, grave → acute. A published form is already in this shape. -#}
nfc_normalize(grave_to_acute(nfc_normalize(lower_grc({{ keep_greek("regexp_replace(regexp_replace(nfc_normalize(" ~ expr ~ "), '\\x{0313}$', chr(8217)), '[\\x{0027}\\x{02BC}\\x{1FBD}\\x{1FBF}]', chr(8217), 'g')") }}))))
{%- endmacro %}

{%- macro letters_key(expr) -%}
{#- a word's letters alone, lowercase, without any diacritic, final sigma as σ: the accent- and
    breathing-blind spelling that crasis pieces are matched by (models/marts/reporting/mart_crasis_candidates.sql) -#}
replace(regexp_replace(lower(strip_accents(nfc_normalize({{ expr }}))), '[^\p{L}]', '', 'g'), 'ς', 'σ')
{%- endmacro %}

{%- macro lemma_cased(expr) -%}
{#- the last step of the SPEC §3 lemma normalization: lowercased with lower_grc, NFC, grave → acute -#}
grave_to_acute(nfc_normalize(lower_grc({{ expr }})))
{%- endmacro %}

{%- macro strip_apparatus(expr, rules) -%}
{#- the reading text of a form (SPEC §12, seed 001): NFC, every match of each pattern of `rules` (a
    list of structs with a `pattern`, the seed apparatus_rules in rule_order) removed in turn, NFC -#}
nfc_normalize(list_reduce({{ rules }}, lambda acc, x: regexp_replace(acc, x.pattern, '', 'g'), nfc_normalize({{ expr }})))
{%- endmacro %}

{%- macro replace_pairs(expr, pairs) -%}
{#- every `latin` of the list of structs `pairs` replaced by its `greek` in turn -#}
list_reduce({{ pairs }}, lambda acc, p: replace(acc, p.latin, p.greek), {{ expr }})
{%- endmacro %}
