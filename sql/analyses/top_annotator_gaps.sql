-- For authors annotated by several projects: the pre-merge categories whose rate differs most
-- between two projects for the same author (percentage points), with both rates and the
-- published value each is merged into (`published_as`, mart_variation; NULL: a FEATS type that
-- is not published).
select
    a.author,
    a.kind,
    a.category,
    v.published_as,
    a.project as project_1,
    b.project as project_2,
    round(a.rate_pct, 2) as rate_1,
    round(b.rate_pct, 2) as rate_2,
    round(abs(a.rate_pct - b.rate_pct), 2) as gap_pp
from mart_rates as a
inner join mart_rates as b
    on
        a.author = b.author
        and a.kind = b.kind
        and a.scheme = b.scheme
        and a.category = b.category
        and a.project < b.project
inner join mart_variation as v on a.kind = v.kind and a.scheme = v.scheme and a.category = v.category
where a.scheme = 'pre_merge'
order by gap_pp desc, a.author asc, a.category asc
limit 20
