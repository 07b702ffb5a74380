-- AGDT files holding the resolved source sentences of UD Perseus dev/test, with how many each.
select
    agdt_path,
    count(*) as n
from mart_ud_perseus_agdt_overlap
where resolved
group by agdt_path
order by agdt_path
