-- PapyGreek words with both annotated layers side by side (macro stg_words, sql/macros/staging.sql):
-- orig_* (the diplomatic reading) and reg_* (the editors' regularisation), and the word's line,
-- hand, text part, language and insertion id (its @artificial, verbatim).
{{ config(materialized='view') }}
{{ stg_words('papygreek', extra_columns={
    'line_n': "nullif(attrs['line_n'], '')",
    'hand': "nullif(attrs['hand'], '')",
    'textpart': "nullif(attrs['textpart'], '')",
    'lang': "nullif(attrs['lang'], '')",
    'insertion_id': "attrs['insertion_id']",
    'artificial': "attrs['artificial']"}) }}
