"""The dbt-duckdb plugin of the project (``profiles.yml``: ``plugins: [{module: sphragis.dbt_plugin}]``):
registers the Python scalar functions the models call (:func:`sphragis.udfs.register`) on every
connection dbt opens, as the runner does on its own (README "Why the project's runner and not dbt").

Imported by dbt-duckdb only; needs dbt-duckdb (the ``dev`` extra).
"""

from __future__ import annotations

from dbt.adapters.duckdb.plugins import BasePlugin
from duckdb import DuckDBPyConnection

from . import udfs


class Plugin(BasePlugin):
    """dbt-duckdb calls :meth:`configure_connection` on each new DuckDB connection."""

    def configure_connection(self, conn: DuckDBPyConnection) -> None:
        """Register the project's UDFs on ``conn`` (:func:`sphragis.udfs.register`)."""
        udfs.register(conn)
