"""Small file-writing helpers shared by the commands: JSON documents and atomic replacement.

Every JSON file the project writes has one shape: UTF-8, ``ensure_ascii=False``, 2-space indent,
a trailing newline, and keys either in insertion order or sorted (``sort_keys``); writing goes
through a temporary file beside the target that is renamed into place, so a failure leaves any
previous file untouched (SPEC §13: outputs are replaced only when complete).

Reading is bounded (SPEC §13): :func:`read_regular` reads only a regular file, up to a size
limit, without ever waiting on a FIFO; :func:`read_json_record` reads a JSON record the project
wrote (a cache, a marker, a manifest), or tells that it cannot be used.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

__all__ = ["InputFileError", "exchange", "json_text", "read_json_record", "read_regular", "replace_dir",
           "require_regular", "restore_dir", "write_json", "write_text_atomic"]


class InputFileError(ValueError):
    """A file the program will not read: not a regular file, or over its size limit (the message
    names the file, what it is, and the limit)."""


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def read_regular(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of ``path``, a regular file (or a link to one) of at most ``limit`` bytes.

    The file is opened without blocking (opening a FIFO for reading would wait for a writer
    forever) and checked once open (``fstat``), so a file swapped for something else after an
    earlier check is caught too; at most ``limit + 1`` bytes are read (a file growing meanwhile).

    Raises:
        InputFileError: ``path`` is a folder, FIFO, device (``/dev/zero``...) or socket, or holds
            more than ``limit`` bytes; the message names it, what it is, and the limit.
        OSError: it cannot be opened (missing, no permission).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        _require_regular(path, st.st_mode)
    except (OSError, InputFileError):
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(limit + 1) if st.st_size <= limit else b""
    if st.st_size > limit or len(data) > limit:
        size = max(st.st_size, len(data))
        raise InputFileError(f"{os.fspath(path)}: {size:,} bytes, over the limit of {limit:,} bytes for such a file")
    return data


def require_regular(path: str | os.PathLike) -> None:
    """Raise :class:`InputFileError` unless ``path`` is a regular file (or a link to one): a FIFO,
    a device, a socket or a link to nothing is named so (a folder too)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputFileError(f"{os.fspath(path)}: a link to a missing file, not a regular file; only regular "
                             "files are read") from None
    _require_regular(path, mode)


def _require_regular(path: str | os.PathLike, mode: int) -> None:
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise InputFileError(f"{os.fspath(path)}: {kind}, not a regular file; only regular files are read")


#: Largest JSON record :func:`read_json_record` reads (bytes): the project's records (source
#: caches, fetch markers, manifests) are a few MB at most.
JSON_RECORD_LIMIT = 256 << 20


def read_json_record(path: str | os.PathLike) -> dict | None:
    """The JSON object in ``path``, a record the project wrote (a cache, a marker, a manifest), or
    None when it cannot be used: absent, not a regular file, over :data:`JSON_RECORD_LIMIT` bytes,
    not UTF-8 JSON, nested beyond the JSON decoder's recursion limit, or not an object. A caller
    treats None as no record (a cache is rebuilt, a marker is missing); it checks the shape of
    the object's values itself."""
    try:
        doc = json.loads(read_regular(path, JSON_RECORD_LIMIT).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def json_text(doc: Any, *, sort_keys: bool = False) -> str:
    """``doc`` as the project's JSON text (see the module docstring), ending in a newline.

    Raises:
        TypeError: ``doc`` holds a value JSON cannot represent.
    """
    return json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=sort_keys) + "\n"


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path``: parent folders are created, the text goes to
    ``.<name>.tmp-<pid>`` beside it, which then replaces ``path`` in one rename. A file that holds
    these bytes already is left as it is (its modification time too: a step whose output did not
    change does not look as if it had), so an up-to-date step rewrites nothing.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        OSError: the folder or file cannot be written (the temporary file is removed).
    """
    path = Path(path)
    data = text.encode("utf-8")
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return path
    except OSError:  # absent (or unreadable: the write below says why)
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


#: Decimals of the fractions (accuracies, F1, CIs) in the JSON reports: ``leakage_report.json``
#: (:mod:`sphragis.audit`) and scored submissions (:mod:`sphragis.submission`).
JSON_DECIMALS = 4


def rounded(obj: Any, decimals: int = JSON_DECIMALS) -> Any:
    """``obj`` (nested dicts and lists) with every float rounded to ``decimals``; other values as they are."""
    if isinstance(obj, float):
        return round(obj, decimals)
    if isinstance(obj, dict):
        return {k: rounded(v, decimals) for k, v in obj.items()}
    if isinstance(obj, list):
        return [rounded(v, decimals) for v in obj]
    return obj


def write_json(path: str | os.PathLike, doc: Any, *, sort_keys: bool = False) -> Path:
    """Write ``doc`` as JSON (:func:`json_text`) to ``path`` atomically (:func:`write_text_atomic`).

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        TypeError: ``doc`` is not JSON-serializable (nothing is written).
        OSError: the file cannot be written.
    """
    return write_text_atomic(path, json_text(doc, sort_keys=sort_keys))


#: ``renameat2``'s flag for an atomic exchange of two paths (Linux 3.15+, ``<linux/fs.h>``).
RENAME_EXCHANGE = 2


def exchange(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Swap the paths ``a`` and ``b`` (both exist) in one atomic step: ``renameat2(2)`` with
    ``RENAME_EXCHANGE`` (Linux), called through :mod:`ctypes`.

    Returns:
        True when swapped; False when the system or file system cannot (nothing was changed).

    Raises:
        OSError: the exchange failed for another reason (e.g. permissions).
    """
    import ctypes
    import ctypes.util
    import errno

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):  # not Linux, or a C library without renameat2 (glibc < 2.28)
        return False
    at_fdcwd = -100
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, f"cannot exchange {a} and {b}: {os.strerror(err)}")


def replace_dir(tmp: str | os.PathLike, target: str | os.PathLike) -> Path:
    """Put the complete folder ``tmp`` in the place of ``target`` so that ``target`` is a complete
    folder, the old or the new, at every instant (SPEC §13): the two are exchanged atomically
    (:func:`exchange`) and the old content, now at ``tmp``, is deleted. Where the system cannot
    exchange, two renames: ``target`` to ``<target>.old-<pid>``, then ``tmp`` to ``target`` (the
    old one is renamed back if that fails, and :func:`restore_dir` puts it back after a process
    killed between the two).

    Returns:
        ``target`` as a :class:`~pathlib.Path`.

    Raises:
        OSError: a rename fails (``target`` then holds its previous content, if it had any).
    """
    tmp, target = Path(tmp), Path(target)
    if not (target.exists() or target.is_symlink()):
        os.rename(tmp, target)
        return target
    if exchange(tmp, target):
        shutil.rmtree(tmp, ignore_errors=True)
        return target
    old = target.with_name(f"{target.name}.old-{os.getpid()}")
    os.replace(target, old)
    try:
        os.replace(tmp, target)
    except OSError:
        if old.exists() or old.is_symlink():
            os.replace(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return target


def restore_dir(target: str | os.PathLike) -> list[Path]:
    """Undo what an interrupted :func:`replace_dir` left beside ``target``: when ``target`` is
    missing, the newest ``<target>.old-*`` (the previous complete folder) is renamed back; every
    other ``<target>.old-*`` is deleted. Call only while holding the lock of ``target`` (no other
    process is replacing it then). Returns the leftovers deleted."""
    import glob

    target = Path(target)
    olds = sorted(target.parent.glob(glob.escape(target.name) + ".old-*"), key=lambda p: p.stat().st_mtime_ns)
    if olds and not (target.exists() or target.is_symlink()):
        os.replace(olds.pop(), target)
    for old in olds:
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink(missing_ok=True)
    return olds
