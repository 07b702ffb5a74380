-- The distinct annotations of every qualifying (author, project) cell with their token counts
-- (SPEC §11; far fewer rows than tokens): the tokens of mart_published_tokens' eligible sentences,
-- one record per dedup group and project (is_first_in_project), in cells of at least
-- var('min_cell_tokens') tokens. upos_pre_merge is the source UPOS where the project has one (UD
-- projects), else the tag-derived UPOS. Read by mart_rates and mart_merge_effects.
-- Grain: one row per (author, project, deprel_ud, deprel, upos_pre_merge, upos, feats_full, feats).
with

tokens as (
    select * from {{ ref('mart_published_tokens') }}
    where is_first_in_project
),

cells as (
    select
        author,
        project,
        count(*) as n_tokens
    from tokens
    group by author, project
    having count(*) >= {{ var('min_cell_tokens') }}
),

profiles as (
    select
        t.author,
        t.project,
        t.deprel_ud,
        t.deprel,
        coalesce(t.upos_source, t.upos) as upos_pre_merge,
        t.upos,
        t.feats_full,
        t.feats,
        count(*) as n,
        any_value(c.n_tokens) as cell_tokens
    from tokens as t
    inner join cells as c on t.author = c.author and t.project = c.project
    group by t.author, t.project, t.deprel_ud, t.deprel, upos_pre_merge, t.upos, t.feats_full, t.feats
)

select * from profiles
