"""Package data, not code: the SQL models (``*.sql``) and their docs and tests (``*.yml``).

Installed as ``sphragis.models`` (``pyproject.toml`` ``[tool.setuptools]``) so a wheel carries them;
read through :data:`sphragis.config.MODELS_DIR`. See ``README.md`` in this folder.
"""
