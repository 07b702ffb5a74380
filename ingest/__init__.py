"""Raw-layer ingest (SPEC §2): installed as ``sphragis.ingest`` (folder ``ingest/``).

``parsers`` turns one upstream file into verbatim rows; ``load`` discovers, parses in parallel and
writes the raw tables.
"""
