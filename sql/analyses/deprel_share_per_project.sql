-- Share of each relation before the merge (`deprel_ud`, UD v2 with subtypes) among the published
-- tokens of each project, over every sentence the project annotates (table `tokens_all_parses`:
-- each project's own parse, kept by the curation or not), zero where the project never uses the
-- relation, with the published DEPREL it becomes: a relation published as another one
-- (`discourse` as `advmod`) has no published share of its own, and `published_as` says so.
with

counts as (
    select
        project,
        deprel_ud,
        deprel,
        count(*) as n_tokens
    from tokens_all_parses
    where is_published_token
    group by project, deprel_ud, deprel
),

projects as (select distinct project from counts),

relations as (
    select distinct
        deprel_ud,
        deprel
    from counts
)

select
    p.project,
    r.deprel_ud,
    r.deprel as published_as,
    coalesce(c.n_tokens, 0) as n_tokens,
    round(100 * coalesce(c.n_tokens, 0) / sum(c.n_tokens) over (partition by p.project), 2) as pct
from projects as p
cross join relations as r
left join counts as c on p.project = c.project and r.deprel_ud = c.deprel_ud
order by p.project asc, n_tokens desc, r.deprel_ud asc
