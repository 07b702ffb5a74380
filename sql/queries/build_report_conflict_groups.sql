-- Deduplication groups omitted because their sentences disagree on the author (SPEC §7; build
-- report `omitted_for_author_conflict_groups`).
select count(*) as groups
from int_dedup_groups
where status = 'author_conflict'
