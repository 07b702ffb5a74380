"""Sphragis warehouse: a DuckDB corpus warehouse for Ancient Greek treebanks.

Sub-packages: ``sphragis.ingest`` (top-level folder ``ingest/``: raw-layer parsers and loader),
``sphragis.export`` (folder ``export/``: Parquet/dataset-card writers), ``sphragis.evaluation``
(the seed-001 evaluation toolkit). The SQL models (folder ``models/``) and seeds, macros, analyses
and DDL (folder ``sql/``) ship as package data in ``sphragis.models`` and ``sphragis.sql``.
"""

__version__ = "0.1.0"
