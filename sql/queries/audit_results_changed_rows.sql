-- How many rows differ between the warehouse's audit_results and the results an audit is about to
-- write (sphragis audit, SPEC §11), compared as multisets: 0 means the table already holds them
-- and is left as it is. Parameters: the registered table audit_results_in (the new rows, same
-- columns in the same order). Grain: one row.
with

old_rows as (select * from audit_results),

new_rows as (select * from audit_results_in),

only_old as (
    select * from old_rows
    except all
    select * from new_rows
),

only_new as (
    select * from new_rows
    except all
    select * from old_rows
)

select (select count(*) from only_old) + (select count(*) from only_new) as changed_rows
