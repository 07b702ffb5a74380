-- UNESP Trees' site configuration (src/config.json, a Perseids treebank site): one row per section
-- of a publication, the file it shows with author, work, editors and locus as the site writes them
-- (macro stg_perseids_site_config, sql/macros/staging.sql).
{{ config(materialized='view') }}
{{ stg_perseids_site_config('unesp') }}
