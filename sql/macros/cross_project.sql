{#- Skeletons of a published text for classifying cross-project text differences (SPEC §5.1):
    the letters plus one kind of non-letter content each. Uses the nfd() UDF (sphragis/udfs.py). -#}
{%- macro text_skeletons(col, suffix) -%}
regexp_replace(nfd({{ col }}), '[^\p{L} ]', '', 'g') as words_{{ suffix }},
regexp_replace(nfd({{ col }}), '[^\p{L}\x{2019}\x{0027}\x{02BC}\x{1FBD}\x{1FBF}]', '', 'g') as apostrophes_{{ suffix }},
regexp_replace(nfd({{ col }}), '[\p{M}\s\x{2019}\x{0027}\x{02BC}\x{1FBD}\x{1FBF}]', '', 'g') as other_chars_{{ suffix }},
regexp_replace(nfd({{ col }}), '[^\p{L}\x{0300}\x{0301}\x{0342}]', '', 'g') as accents_{{ suffix }},
replace(regexp_replace(nfd({{ col }}), '[^\p{L}\x{0300}\x{0301}\x{0342}]', '', 'g'), chr(768), chr(769)) as graveless_{{ suffix }},
regexp_replace(nfd({{ col }}), '[^\p{L}\x{0313}\x{0314}\x{0308}\x{0345}]', '', 'g') as other_marks_{{ suffix }}
{%- endmacro %}

{%- macro in_agreement_scope(s, x) -%}
{#- Whether pair (or token pair) `x` counts in the agreement scope `s`.scope of
    mart_cross_project_agreement: all pairs, pairs of two retained records, pairs of records of one
    document (same Trismegistos number). -#}
{{ s }}.scope = 'all' or ({{ s }}.scope = 'retained' and {{ x }}.both_retained)
or ({{ s }}.scope = 'same_document' and {{ x }}.same_document)
{%- endmacro %}
