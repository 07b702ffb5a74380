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

__all__ = ["OUTPUT_MARKER", "InputFileError", "OutputRefused", "check_output_file", "claim_output_dir", "exchange",
           "json_text", "mark_output_dir", "open_output_dir", "read_json_record", "read_regular", "replace_dir",
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


#: The file that marks a folder as an output of the product (SPEC §13: it never deletes or
#: overwrites what it did not write). It holds the kind of output (``export``, ``treebank``,
#: ``site``, ``reports``...): a folder is written only by the command that made it.
OUTPUT_MARKER = ".sphragis-output"


class OutputRefused(ValueError):
    """An output path the command may not write; the message names it and the way out (one line)."""


def _real(path: str | os.PathLike) -> Path:
    return Path(os.path.realpath(os.path.abspath(os.path.expanduser(path))))


def _overlap(a: Path, b: Path) -> bool:
    """True when the real paths ``a`` and ``b`` are the same, or one lies inside the other."""
    return a == b or a in b.parents or b in a.parents


def claim_output_dir(out: str | os.PathLike, kind: str, *, protected: tuple[str | os.PathLike, ...] = ()) -> Path:
    """Check that a command may write its output folder ``out`` (SPEC §13), before any work.

    Allowed: a path that does not exist yet, an empty folder, or a folder that carries
    :data:`OUTPUT_MARKER` for the same ``kind`` of output (a folder this product wrote). Refused:
    anything else (a user's folder, a file, another command's output), and any ``out`` that is, is
    inside or holds one of the ``protected`` paths (the command's inputs: the unpacked sources, the
    warehouse, an export it reads). Links are followed.

    Args:
        out: the output folder.
        kind: the kind of output written there (a word: ``export``, ``treebank``, ``site``...).
        protected: paths the output must stay clear of (absent ones are compared too).

    Returns:
        ``out`` as an absolute :class:`~pathlib.Path` (links kept, as given).

    Raises:
        OutputRefused: one line naming ``out``, why, and the way out.
    """
    given = Path(os.path.abspath(os.path.expanduser(out)))
    real = _real(given)
    for p in protected:
        if _overlap(real, _real(p)):
            raise OutputRefused(f"{given}: the {kind} output may not be, hold or lie inside {p}, which it reads; "
                                "choose another output folder")
    if not (real.exists() or given.is_symlink()):
        return given
    if not real.is_dir():
        raise OutputRefused(f"{given} exists and is not a folder; the {kind} output is a folder: "
                            "choose another path")
    marker = real / OUTPUT_MARKER
    if marker.is_file() and not marker.is_symlink():
        written = marker.read_text(encoding="utf-8", errors="replace").strip()
        if written == kind:
            return given
        raise OutputRefused(f"{given} holds the {written[:40]!r} output of sphragis, not a {kind} output; "
                            "choose another folder")
    if any(real.iterdir()):
        raise OutputRefused(f"{given} holds files sphragis did not write (no {OUTPUT_MARKER} in it); "
                            f"the {kind} output replaces its folder whole: choose a new or empty folder (a folder "
                            "an older sphragis wrote, before the marker: remove it, then run again)")
    return given


def mark_output_dir(folder: str | os.PathLike, kind: str) -> Path:
    """Write :data:`OUTPUT_MARKER` (holding ``kind``) into ``folder``, the output being made.

    Returns:
        The marker's path.

    Raises:
        OSError: the file cannot be written.
    """
    marker = Path(folder) / OUTPUT_MARKER
    marker.write_text(kind + "\n", encoding="utf-8")
    return marker


def open_output_dir(out: str | os.PathLike, kind: str, *,
                    protected: tuple[str | os.PathLike, ...] = ()) -> Path:
    """An output folder that a command adds its files to (``reports/``): checked as
    :func:`claim_output_dir` does, created if needed, and marked (:func:`mark_output_dir`).

    Returns:
        ``out`` as an absolute :class:`~pathlib.Path`.

    Raises:
        OutputRefused: see :func:`claim_output_dir`.
        OSError: the folder cannot be made.
    """
    out = claim_output_dir(out, kind, protected=protected)
    out.mkdir(parents=True, exist_ok=True)
    if not (out / OUTPUT_MARKER).is_file():
        mark_output_dir(out, kind)
    return out


def check_output_file(path: str | os.PathLike, *, protected: tuple[str | os.PathLike, ...] = (),
                      force: bool = False) -> Path:
    """Check that a command may write the single file ``path`` (``sphragis sql --output``,
    ``sphragis score --json``; SPEC §13: the warehouse, the sources and the export are never the
    output of the shell or the scorer).

    Refused: a path that is, or lies inside, one of the ``protected`` paths (links followed), or
    that names a companion file of a protected file (``<protected>.<suffix>`` beside it); an
    existing path that is not a regular file (a folder, a FIFO, a device); an existing regular file
    unless ``force``.

    Returns:
        ``path`` as an absolute :class:`~pathlib.Path`.

    Raises:
        OutputRefused: one line naming ``path``, why, and the way out.
    """
    given = Path(os.path.abspath(os.path.expanduser(path)))
    real = _real(given)
    for p in protected:
        rp = _real(p)
        # a protected file's companions beside it (<warehouse>.manifest.json, .lock, .wal...) too
        companion = real.parent == rp.parent and real.name.startswith(rp.name + ".") and not rp.is_dir()
        if real == rp or rp in real.parents or companion:
            raise OutputRefused(f"{given}: may not write {'into ' if rp in real.parents else ''}{p}"
                                f"{' (or a file beside it of the same name)' if companion else ''}; "
                                "choose another file")
    if real.exists() or given.is_symlink():
        if not real.is_file():
            raise OutputRefused(f"{given} exists and is not a regular file; choose another file")
        if not force:
            raise OutputRefused(f"{given} exists; choose another file, or pass --force to replace it")
    return given


def replace_dir(tmp: str | os.PathLike, target: str | os.PathLike, kind: str | None = None) -> Path:
    """Put the complete folder ``tmp`` in the place of ``target`` so that ``target`` is a complete
    folder, the old or the new, at every instant (SPEC §13). With ``kind``, ``target`` is first
    checked again (:func:`claim_output_dir`: absent, empty or this kind's output) and ``tmp`` is
    marked (:func:`mark_output_dir`), so a folder the product did not write is never replaced
    (:class:`OutputRefused`). The two are exchanged atomically
    (:func:`exchange`) and the old content, now at ``tmp``, is deleted. Where the system cannot
    exchange, two renames: ``target`` to ``<target>.old-<pid>``, then ``tmp`` to ``target`` (the
    old one is renamed back if that fails, and :func:`restore_dir` puts it back after a process
    killed between the two).

    Returns:
        ``target`` as a :class:`~pathlib.Path`.

    Raises:
        OutputRefused: ``kind`` given and ``target`` is a folder the product did not write.
        OSError: a rename fails (``target`` then holds its previous content, if it had any).
    """
    tmp, target = Path(tmp), Path(target)
    if kind is not None:
        claim_output_dir(target, kind)
        mark_output_dir(tmp, kind)
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
