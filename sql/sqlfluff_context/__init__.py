"""The Jinja context of ``make lint`` (sqlfluff's ``library_path``, pyproject.toml): ``var()`` returns
the runner's own defaults (:func:`sphragis.runner.project_vars`: the build variables and the
``projects`` list of the project registry, the seed projects), so the linter renders the models as a build does
and no copy of those values is kept for it. ``ref``/``source``/``config`` are pyproject's macros."""

from sphragis.runner import project_vars

_VARS = project_vars()


def var(name, default=None):
    """A build variable's default value, as the runner's ``var()`` gives it."""
    return _VARS.get(name, default)
