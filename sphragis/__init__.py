"""Sphragis warehouse: a DuckDB corpus warehouse for Ancient Greek treebanks.

Sub-packages: ``sphragis.ingest`` (top-level folder ``ingest/``: raw-layer parsers and loader),
``sphragis.export`` (folder ``export/``: Parquet/dataset-card writers), ``sphragis.evaluation``
(the seed-001 evaluation toolkit). SQL models live in ``models/``, seeds and macros in ``sql/``.
"""

__version__ = "0.1.0"
