"""The ``vars:`` block of ``dbt_project.yml``, generated from the runner's ``var()`` defaults
(:func:`sphragis.runner.project_vars`: ``sphragis/config.py`` ``BUILD_VARS``, the project registry
``sql/seeds/projects.csv`` and the seed ``edition_variants``), so dbt renders the models with the
values the runner uses and none of them is kept by hand. ``make dbt-vars`` (``python -m
sphragis.dbt_vars``) rewrites the block after a registry or variable edit; ``tests/test_dbt.py``
fails, naming that command, while the file differs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

#: The line that opens the generated block; everything after it is generated.
VARS_LINE = "vars:\n"


def vars_block() -> str:
    """The YAML of the ``vars:`` mapping (its entries indented two spaces, one project registry row
    per line, every registry value a string as the runner reads the CSV)."""
    from .runner import project_vars

    body = yaml.safe_dump(project_vars(), sort_keys=False, allow_unicode=True, default_flow_style=None,
                          width=1 << 16)
    return "".join(f"  {line}\n" for line in body.splitlines())


def update(path: Path) -> bool:
    """Rewrite the ``vars:`` block of the dbt project file ``path`` (from the line ``vars:`` to the
    end) with :func:`vars_block`. Returns whether the file changed.

    Raises:
        ValueError: ``path`` has no line ``vars:`` (names the file).
        OSError: the file cannot be read or written.
    """
    text = path.read_text(encoding="utf-8")
    at = text.find("\n" + VARS_LINE)
    if at < 0:
        raise ValueError(f"{path}: no line 'vars:' to rewrite")
    new = text[:at + 1] + VARS_LINE + vars_block()
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    """``python -m sphragis.dbt_vars [DBT_PROJECT_YML]`` (default ``dbt_project.yml`` in the current
    directory): rewrite its ``vars:`` block and say whether it changed."""
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0] if args else "dbt_project.yml")
    changed = update(path)
    print(f"{path}: vars {'rewritten' if changed else 'up to date'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
