"""Package data, not code: ``ddl/``, ``macros/``, ``seeds/`` and ``analyses/`` (SQL and CSV).

Installed as ``sphragis.sql`` (``pyproject.toml`` ``[tool.setuptools]``) so a wheel carries them;
read through :data:`sphragis.config.SQL_DIR` and the folders derived from it there.
"""
