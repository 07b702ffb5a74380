"""Small file-writing helpers shared by the commands: JSON documents and atomic replacement.

Every JSON file the project writes has one shape: UTF-8, ``ensure_ascii=False``, 2-space indent,
a trailing newline, and keys either in insertion order or sorted (``sort_keys``); writing goes
through a temporary file beside the target that is renamed into place, so a failure leaves any
previous file untouched (SPEC §13: outputs are replaced only when complete).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

__all__ = ["json_text", "replace_dir", "write_json", "write_text_atomic"]


def json_text(doc: Any, *, sort_keys: bool = False) -> str:
    """``doc`` as the project's JSON text (see the module docstring), ending in a newline.

    Raises:
        TypeError: ``doc`` holds a value JSON cannot represent.
    """
    return json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=sort_keys) + "\n"


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path``: parent folders are created, the text goes to
    ``.<name>.tmp-<pid>`` beside it, which then replaces ``path`` in one rename.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        OSError: the folder or file cannot be written (the temporary file is removed).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_json(path: str | os.PathLike, doc: Any, *, sort_keys: bool = False) -> Path:
    """Write ``doc`` as JSON (:func:`json_text`) to ``path`` atomically (:func:`write_text_atomic`).

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        TypeError: ``doc`` is not JSON-serializable (nothing is written).
        OSError: the file cannot be written.
    """
    return write_text_atomic(path, json_text(doc, sort_keys=sort_keys))


def replace_dir(tmp: str | os.PathLike, target: str | os.PathLike) -> Path:
    """Put the complete folder ``tmp`` in the place of ``target`` with two renames: an existing
    ``target`` is first renamed to ``<target>.old-<pid>`` beside it and deleted only once ``tmp``
    is in place; if that second rename fails, the old ``target`` is renamed back.

    Returns:
        ``target`` as a :class:`~pathlib.Path`.

    Raises:
        OSError: a rename fails (``target`` then holds its previous content, if it had any).
    """
    tmp, target = Path(tmp), Path(target)
    old = target.with_name(f"{target.name}.old-{os.getpid()}")
    if target.exists() or target.is_symlink():
        os.replace(target, old)
    try:
        os.replace(tmp, target)
    except OSError:
        if old.exists() or old.is_symlink():
            os.replace(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return target
