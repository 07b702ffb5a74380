-- Every table and view of the warehouse a program reads (not DuckDB's internal views), for the
-- checks that the tables it needs exist (sphragis.queries.relations). No parameters.
select table_name as relation
from duckdb_tables()
where not temporary
union all
select view_name as relation
from duckdb_views()
where not internal and not temporary
