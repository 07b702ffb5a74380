"""The analyst's workbench: ``sphragis sql`` (read-only queries and an interactive
shell on the warehouse) and ``sphragis docs`` (an offline static data dictionary with lineage and
interactive variation charts).

Modules: :mod:`.sql` (queries), :mod:`.catalog` (what the site documents: models, seeds, raw
tables, edges), :mod:`.lineage` (the DAG picture), :mod:`.charts` (variation charts),
:mod:`.site` (the HTML pages), :mod:`.cli` (the two subcommands).
"""
