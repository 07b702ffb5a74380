"""``make fetch``: unpack the pinned upstream snapshots into the data directory (SPEC §1).

Source rule (SPEC §1). Every snapshot of the checked-in pin list (``sphragis/sources.json``, read by
:func:`sphragis.config.snapshots`) is materialized as ``<data>/<snapshot name>/`` holding the
upstream files whose repository-relative path starts with one of the snapshot's
``included_prefixes`` (plain string prefixes: ``"v2.1/Greek/"`` is a folder, ``"grc_perseus"``
matches ``grc_perseus-ud-dev.conllu``), at the same relative paths as upstream.

* **Mirror mode** (the mirror directory ``SPHRAGIS_MIRROR``, default ``../shared/sources``, exists):
  the snapshot's ``archive`` (a ``tar.xz`` whose paths are relative to the upstream repository root)
  must be in the mirror; its sha256 is verified (streamed) *before* anything is unpacked. The
  pinned ``missing`` files (4 MiB or larger, not mirrored) are then absent, as expected.
* **Upstream mode** (no mirror directory, or ``SPHRAGIS_MIRROR`` set to ``""`` or ``none``): the
  pinned commit is fetched from the snapshot's ``upstream`` URL (``git fetch --depth 1 <url>
  <commit>``, falling back to a full fetch of the branches when the server refuses unadvertised
  objects), the fetched commit is checked against the pinned full commit, and the included paths
  are read from that commit. Upstream also has the pinned ``missing`` files, so they are present
  (and required) in this mode.

Either way the files are written to a temporary directory beside the target and renamed into
place only when complete, so an interrupted fetch leaves the previous snapshot untouched. A marker
file ``<data>/<name>/.sphragis-snapshot.json`` records what was unpacked; a re-run whose marker
matches the pin (commit, included prefixes and, for mirror snapshots, archive sha256) is a no-op.

Every failure is a :class:`FetchError` whose message names the offending file: a wrong checksum, an
archive absent from the mirror, an included prefix absent from the archive or commit, a commit
mismatch, an unsafe archive member, or a failing git command (with git's stderr).

Command line: ``python -m sphragis.fetch [--force] [--quiet] [NAME ...]``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from sphragis import config

__all__ = [
    "MARKER_NAME",
    "FetchError",
    "FetchResult",
    "fetch_all",
    "fetch_snapshot",
    "fetch_snapshot_result",
    "main",
    "read_marker",
    "resolve_mirror",
    "sha256_file",
]

#: Marker file written inside every unpacked snapshot (``<data>/<name>/.sphragis-snapshot.json``).
MARKER_NAME = ".sphragis-snapshot.json"
#: Version of the marker layout; a marker with another version is treated as stale.
MARKER_VERSION = 1
#: ``SPHRAGIS_MIRROR`` values that select upstream mode explicitly.
_NO_MIRROR_VALUES = {"", "none"}

_CHUNK = 1 << 20
_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_SNAPSHOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]*")


class FetchError(RuntimeError):
    """A snapshot could not be fetched; the message names the snapshot and the offending file."""


@dataclass(frozen=True)
class FetchResult:
    """Outcome of fetching one snapshot.

    Attributes:
        name: snapshot name.
        path: ``<data>/<name>``, the unpacked snapshot root.
        source: ``"mirror"`` or ``"git"``: where the files on disk came from.
        files: number of files unpacked (from the marker when ``skipped``).
        skipped: ``True`` when the marker already matched the pin and nothing was written.
        seconds: wall time spent on this snapshot.
    """

    name: str
    path: Path
    source: str
    files: int
    skipped: bool
    seconds: float


# --------------------------------------------------------------------------------------------
# public API


def sha256_file(path: Path) -> str:
    """Hex sha256 of the file at ``path``, read in 1 MiB chunks (constant memory).

    Raises:
        FetchError: the file cannot be read.
    """
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                h.update(chunk)
    except OSError as exc:
        raise FetchError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return h.hexdigest()


def resolve_mirror(settings: config.Settings | None = None) -> Path | None:
    """The mirror directory to use, or ``None`` for upstream mode (SPEC §1 source rule).

    Returns ``None`` when ``SPHRAGIS_MIRROR`` is set to ``""`` or ``none`` (any case), when
    ``settings.mirror`` is ``None``, or when the default/explicitly passed mirror directory does
    not exist. Otherwise the mirror directory as a :class:`~pathlib.Path`.

    Raises:
        FetchError: ``SPHRAGIS_MIRROR`` names a directory that does not exist (a typo would
            otherwise silently switch to network fetches); set it to ``none`` for upstream mode.
    """
    settings = settings or config.settings()
    env = os.environ.get("SPHRAGIS_MIRROR")
    if env is not None and env.strip().lower() in _NO_MIRROR_VALUES:
        return None
    mirror = getattr(settings, "mirror", None)
    if mirror is None:
        return None
    mirror = Path(mirror)
    if mirror.is_dir():
        return mirror
    if env is not None and mirror == config._path("SPHRAGIS_MIRROR", env):
        raise FetchError(
            f"SPHRAGIS_MIRROR={env!r}: mirror directory {mirror} does not exist "
            "(unset SPHRAGIS_MIRROR or set it to 'none' to fetch from upstream)"
        )
    return None


def read_marker(target: Path) -> dict[str, Any] | None:
    """The parsed marker ``<target>/.sphragis-snapshot.json``, or ``None`` if absent or unreadable.

    Shape: ``{"version": 1, "name": str, "source": "mirror"|"git", "upstream": str,
    "commit": str, "archive": str, "sha256": str, "included_prefixes": [str], "files": int}``
    (``sha256`` is the pinned archive checksum; for ``source == "git"`` it is the pin's value,
    not a checksum of anything fetched).
    """
    try:
        data = json.loads((Path(target) / MARKER_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def fetch_snapshot(
    snapshot: Mapping[str, Any],
    settings: config.Settings | None = None,
    *,
    force: bool = False,
) -> Path:
    """Make ``<settings.data>/<snapshot["name"]>/`` hold the snapshot's included upstream files.

    Args:
        snapshot: one pin-list entry (see :func:`sphragis.config.snapshots`). Keys used: ``name``,
            ``commit`` (full 40/64-hex), ``included_prefixes`` (list of path prefixes relative to
            the upstream repository root), and per mode ``archive`` + ``sha256`` (mirror) or
            ``upstream`` (git URL, any URL ``git fetch`` accepts, e.g. ``file://``); optional
            ``missing`` (files upstream has but the mirror lacks; required in upstream mode).
        settings: paths (``mirror``, ``data``); default :func:`sphragis.config.settings`.
        force: re-fetch even when the marker matches the pin.

    Returns:
        The snapshot root ``<data>/<name>`` (a :class:`~pathlib.Path`).

    Raises:
        FetchError: invalid pin entry, archive missing from the mirror, sha256 mismatch, unsafe
            or unsupported archive member, included prefix (or, upstream, a pinned ``missing``
            file) absent, commit mismatch, or git failure. The previous snapshot, if any, is
            left in place.
    """
    return fetch_snapshot_result(snapshot, settings, force=force).path


def fetch_snapshot_result(
    snapshot: Mapping[str, Any],
    settings: config.Settings | None = None,
    *,
    force: bool = False,
) -> FetchResult:
    """Like :func:`fetch_snapshot`, returning a :class:`FetchResult` (source, file count, skip)."""
    started = time.perf_counter()
    settings = settings or config.settings()
    name = _validate(snapshot)
    mirror = resolve_mirror(settings)
    data = Path(settings.data)
    target = data / name

    marker = read_marker(target)
    if not force and _marker_matches(marker, snapshot):
        assert marker is not None
        return FetchResult(
            name, target, str(marker.get("source")), int(marker.get("files", 0)), True,
            time.perf_counter() - started,
        )

    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FetchError(f"cannot create data directory {data}: {exc.strerror or exc}") from exc

    if mirror is not None:
        source = "mirror"
        archive = mirror / str(snapshot["archive"])
        _check_archive(archive, snapshot)  # before any temp dir exists
    else:
        source = "git"

    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=data))
    try:
        os.chmod(tmp, 0o755)  # mkdtemp makes 0700; the snapshot root should look like any folder
        if source == "mirror":
            counts = _unpack_archive(archive, snapshot, tmp)
        else:
            counts = _checkout_upstream(snapshot, tmp, data)
        files = sum(counts.values())
        _write_marker(tmp, snapshot, source, files)
        _swap_into_place(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return FetchResult(name, target, source, files, False, time.perf_counter() - started)


def fetch_all(
    settings: config.Settings | None = None,
    *,
    progress: bool = True,
    snapshots: Iterable[Mapping[str, Any]] | None = None,
    force: bool = False,
) -> dict[str, Path]:
    """Fetch every pinned snapshot (SPEC §1) into ``<settings.data>/<name>/``.

    Args:
        settings: paths; default :func:`sphragis.config.settings`. The mode (mirror or upstream)
            is chosen by :func:`resolve_mirror`.
        progress: show a ``rich`` progress bar and one status line per snapshot (on stderr).
        snapshots: pin entries to fetch; default the checked-in list
            (:func:`sphragis.config.snapshots`).
        force: re-fetch snapshots whose marker already matches.

    Returns:
        ``{snapshot name: snapshot root Path}`` in pin-list order.

    Raises:
        FetchError: after trying every snapshot, if any failed; the message lists each failure
            (each naming its file). Snapshots that succeeded stay in place.
    """
    settings = settings or config.settings()
    pins = list(config.snapshots() if snapshots is None else snapshots)
    mirror = resolve_mirror(settings)  # fail fast on a mistyped SPHRAGIS_MIRROR
    results: dict[str, Path] = {}
    errors: list[str] = []

    console = None
    if progress:
        from rich.console import Console

        console = Console(stderr=True)
        where = f"mirror {mirror}" if mirror else "upstream git (no mirror)"
        console.print(f"fetch: {len(pins)} snapshots from {where} into {settings.data}")

    def one(pin: Mapping[str, Any]) -> FetchResult | None:
        try:
            return fetch_snapshot_result(pin, settings, force=force)
        except FetchError as exc:
            errors.append(str(exc))
            return None

    def report(res: FetchResult | None, pin: Mapping[str, Any]) -> None:
        if console is None:
            return
        if res is None:
            console.print(f"  [red]FAILED[/red] {pin.get('name')}: {errors[-1]}")
        elif res.skipped:
            console.print(f"  up to date  {res.name} ({res.source}, {res.files} files)")
        else:
            console.print(
                f"  fetched     {res.name} ({res.source}, {res.files} files, {res.seconds:.1f} s)"
            )

    if console is not None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        with Progress(
            SpinnerColumn(),
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        ) as bar:
            task = bar.add_task("fetch", total=len(pins))
            for pin in pins:
                bar.update(task, description=f"fetch {pin.get('name')}")
                res = one(pin)
                report(res, pin)
                if res is not None:
                    results[res.name] = res.path
                bar.advance(task)
    else:
        for pin in pins:
            res = one(pin)
            if res is not None:
                results[res.name] = res.path

    if errors:
        raise FetchError(
            f"{len(errors)} of {len(pins)} snapshots failed:\n" + "\n".join(f"- {e}" for e in errors)
        )
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m sphragis.fetch [--force] [--quiet] [NAME ...]``; exit 1 with a message on error."""
    import argparse

    ap = argparse.ArgumentParser(prog="sphragis-fetch", description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="snapshot names (default: all pinned snapshots)")
    ap.add_argument("--force", action="store_true", help="re-fetch even if up to date")
    ap.add_argument("--quiet", action="store_true", help="no progress output")
    args = ap.parse_args(argv)
    try:
        pins = list(config.snapshots())
        if args.names:
            known = {p["name"] for p in pins}
            unknown = [n for n in args.names if n not in known]
            if unknown:
                raise FetchError(f"unknown snapshot(s) {unknown}; pinned: {sorted(known)}")
            pins = [p for p in pins if p["name"] in args.names]
        fetch_all(progress=not args.quiet, snapshots=pins, force=args.force)
    except FetchError as exc:
        print(f"fetch: error: {exc}", file=sys.stderr)
        return 1
    return 0


# --------------------------------------------------------------------------------------------
# helpers


def _validate(snapshot: Mapping[str, Any]) -> str:
    name = snapshot.get("name")
    if not isinstance(name, str) or not _SNAPSHOT_NAME.fullmatch(name) or ".." in name:
        raise FetchError(f"pin list entry has an invalid snapshot name: {name!r}")
    commit = snapshot.get("commit")
    if not isinstance(commit, str) or not _FULL_SHA.fullmatch(commit):
        raise FetchError(f"snapshot {name}: pinned commit {commit!r} is not a full lowercase hex sha")
    prefixes = snapshot.get("included_prefixes")
    if (
        not isinstance(prefixes, list)
        or not prefixes
        or not all(isinstance(p, str) and p for p in prefixes)
    ):
        raise FetchError(f"snapshot {name}: included_prefixes must be a non-empty list of paths")
    for p in prefixes:
        if _unsafe(p.rstrip("/")):
            raise FetchError(f"snapshot {name}: included prefix {p!r} is not a relative path")
    return name


def _marker_matches(marker: Mapping[str, Any] | None, snapshot: Mapping[str, Any]) -> bool:
    if not marker or marker.get("version") != MARKER_VERSION:
        return False
    if marker.get("name") != snapshot["name"] or marker.get("commit") != snapshot["commit"]:
        return False
    if list(marker.get("included_prefixes") or []) != list(snapshot["included_prefixes"]):
        return False
    if marker.get("source") == "git":
        return True  # the commit's own files: a superset of any mirror archive of it
    return marker.get("source") == "mirror" and marker.get("sha256") == snapshot.get("sha256")


def _write_marker(root: Path, snapshot: Mapping[str, Any], source: str, files: int) -> None:
    marker = {
        "version": MARKER_VERSION,
        "name": snapshot["name"],
        "source": source,
        "upstream": snapshot.get("upstream"),
        "commit": snapshot["commit"],
        "archive": snapshot.get("archive"),
        "sha256": snapshot.get("sha256"),
        "included_prefixes": list(snapshot["included_prefixes"]),
        "files": files,
    }
    (root / MARKER_NAME).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")


def _swap_into_place(tmp: Path, target: Path) -> None:
    """Rename the complete ``tmp`` to ``target``; an existing ``target`` is moved aside first."""
    old: Path | None = None
    try:
        if target.exists() or target.is_symlink():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
            old.rmdir()
            os.rename(target, old)
        try:
            os.rename(tmp, target)
        except OSError:
            if old is not None:
                os.rename(old, target)
                old = None
            raise
    except OSError as exc:
        raise FetchError(f"cannot move {tmp} into place as {target}: {exc.strerror or exc}") from exc
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _unsafe(name: str) -> bool:
    if not name or name.startswith("/") or "\\" in name or "\0" in name:
        return True
    return any(part in ("..",) for part in name.split("/"))


def _norm_member(name: str) -> str:
    while name.startswith("./"):
        name = name[2:]
    return name.rstrip("/") if name not in ("", ".") else ""


def _prefix_of(path: str, prefixes: Sequence[str]) -> str | None:
    for p in prefixes:
        if path.startswith(p):
            return p
    return None


def _write_file(root: Path, rel: str, src: IO[bytes], size: int | None, mode: int) -> None:
    dest = root.joinpath(*PurePosixPath(rel).parts)
    # Defence in depth: the joined path must stay inside root (no '..', no absolute parts).
    if os.path.commonpath([os.path.abspath(dest), os.path.abspath(root)]) != os.path.abspath(root):
        raise FetchError(f"refusing to write {rel!r} outside {root}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(dest, "wb") as out:
        if size is None:
            shutil.copyfileobj(src, out, _CHUNK)
        else:
            remaining = size
            while remaining:
                chunk = src.read(min(_CHUNK, remaining))
                if not chunk:
                    raise FetchError(f"truncated content for {rel!r}")
                out.write(chunk)
                remaining -= len(chunk)
    os.chmod(dest, 0o755 if mode & 0o111 else 0o644)


def _check_prefixes(counts: Mapping[str, int], snapshot: Mapping[str, Any], where: str) -> None:
    absent = [p for p in snapshot["included_prefixes"] if not counts.get(p)]
    if absent:
        raise FetchError(
            f"snapshot {snapshot['name']}: included path(s) {', '.join(map(repr, absent))} from the "
            f"pin list not found in {where}"
        )


# ---- mirror mode


def _check_archive(archive: Path, snapshot: Mapping[str, Any]) -> None:
    name = snapshot["name"]
    if not snapshot.get("archive") or not snapshot.get("sha256"):
        raise FetchError(f"snapshot {name}: pin list entry lacks 'archive' or 'sha256'")
    if not archive.is_file():
        raise FetchError(
            f"snapshot {name}: archive missing from the mirror: expected {archive} "
            "(set SPHRAGIS_MIRROR=none to fetch from upstream instead)"
        )
    expected = str(snapshot["sha256"]).lower()
    got = sha256_file(archive)
    if got != expected:
        raise FetchError(f"sha256 mismatch for {archive}: expected {expected}, got {got}")


def _unpack_archive(archive: Path, snapshot: Mapping[str, Any], root: Path) -> dict[str, int]:
    """Stream-unpack the included regular files of ``archive`` into ``root``; counts per prefix."""
    prefixes = list(snapshot["included_prefixes"])
    counts = dict.fromkeys(prefixes, 0)
    try:
        with tarfile.open(archive, mode="r|*") as tar:
            for member in tar:
                rel = _norm_member(member.name)
                if not rel:
                    continue
                if _unsafe(member.name) or _unsafe(rel):
                    raise FetchError(f"unsafe member {member.name!r} in {archive}; refusing to unpack")
                if member.isdir():
                    continue
                prefix = _prefix_of(rel, prefixes)
                if prefix is None:
                    continue
                if not member.isreg():
                    raise FetchError(
                        f"unsupported member {member.name!r} (not a regular file) in {archive}"
                    )
                src = tar.extractfile(member)
                assert src is not None
                _write_file(root, rel, src, None, member.mode)
                counts[prefix] += 1
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise FetchError(f"cannot unpack {archive}: {exc}") from exc
    _check_prefixes(counts, snapshot, str(archive))
    return counts


# ---- upstream (git) mode


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    env["GIT_TERMINAL_PROMPT"] = "0"  # never hang on a credential prompt
    env.setdefault("GIT_ASKPASS", "true")
    return env


def _git(args: Sequence[str], cwd: Path, name: str, *, check: bool = True) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, env=_git_env(), capture_output=True, stdin=subprocess.DEVNULL
        )
    except FileNotFoundError as exc:
        raise FetchError(f"snapshot {name}: git is not installed (needed without a mirror)") from exc
    if check and proc.returncode != 0:
        raise FetchError(_git_failure(args, proc, name))
    return proc


def _git_failure(args: Sequence[str], proc: subprocess.CompletedProcess, name: str) -> str:
    stderr = proc.stderr.decode("utf-8", "replace").strip() if proc.stderr else ""
    return f"snapshot {name}: `git {' '.join(args)}` failed (exit {proc.returncode}): {stderr}"


def _checkout_upstream(snapshot: Mapping[str, Any], root: Path, data: Path) -> dict[str, int]:
    name, commit = snapshot["name"], snapshot["commit"]
    url = snapshot.get("upstream")
    if not url:
        raise FetchError(f"snapshot {name}: pin list entry lacks 'upstream' (no mirror present)")
    with tempfile.TemporaryDirectory(prefix=f".{name}.git-", dir=data) as gdir:
        repo = Path(gdir)
        _git(["init", "--quiet", "--bare", "."], repo, name)
        shallow = _git(["fetch", "--quiet", "--no-tags", "--depth", "1", url, commit], repo, name,
                       check=False)
        if shallow.returncode != 0:
            # Some servers refuse to serve a commit by sha (unadvertised object): fetch the
            # branches and tags instead, then look the commit up locally.
            full = _git(
                ["fetch", "--quiet", url, "+refs/heads/*:refs/remotes/upstream/*",
                 "+refs/tags/*:refs/tags/*"],
                repo, name, check=False,
            )
            if full.returncode != 0:
                raise FetchError(
                    _git_failure(["fetch", "--depth", "1", url, commit], shallow, name)
                    + f"\n  (full fetch fallback also failed: "
                    + (full.stderr.decode("utf-8", "replace").strip() or f"exit {full.returncode}")
                    + ")"
                )
            ref = commit
        else:
            ref = "FETCH_HEAD"
        got = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], repo, name,
                   check=False)
        fetched = got.stdout.decode().strip() if got.returncode == 0 else ""
        if fetched != commit:
            raise FetchError(
                f"snapshot {name}: commit mismatch for {url}: pinned {commit}, fetched "
                f"{fetched or 'nothing (commit not found upstream)'}"
            )
        return _extract_commit(repo, snapshot, root, url)


def _extract_commit(repo: Path, snapshot: Mapping[str, Any], root: Path, url: str) -> dict[str, int]:
    name, commit = snapshot["name"], snapshot["commit"]
    prefixes = list(snapshot["included_prefixes"])
    counts = dict.fromkeys(prefixes, 0)
    listing = _git(["ls-tree", "-r", "-z", "--full-tree", commit], repo, name).stdout
    entries: list[tuple[str, str, str]] = []  # (mode, oid, path)
    for rec in listing.split(b"\0"):
        if not rec:
            continue
        meta, _, raw_path = rec.partition(b"\t")
        mode, _type, oid = meta.decode().split(" ")
        path = raw_path.decode("utf-8", "surrogateescape")
        prefix = _prefix_of(path, prefixes)
        if prefix is None:
            continue
        if _unsafe(path):
            raise FetchError(f"snapshot {name}: unsafe path {path!r} in {url}@{commit}")
        if mode not in ("100644", "100755"):
            raise FetchError(
                f"snapshot {name}: unsupported entry {path!r} (mode {mode}, not a regular file) "
                f"in {url}@{commit}"
            )
        entries.append((mode, oid, path))
        counts[prefix] += 1
    _check_prefixes(counts, snapshot, f"{url} at commit {commit}")
    have = {p for _, _, p in entries}
    absent = [m for m in snapshot.get("missing") or [] if m not in have]
    if absent:
        raise FetchError(
            f"snapshot {name}: file(s) {', '.join(map(repr, absent))} named in the pin list "
            f"('missing' from the mirror) not found in {url} at commit {commit}"
        )

    try:
        proc = subprocess.Popen(
            ["git", "cat-file", "--batch"], cwd=repo, env=_git_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
    except FileNotFoundError as exc:  # pragma: no cover - git vanished mid-run
        raise FetchError(f"snapshot {name}: git is not installed") from exc
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for mode, oid, path in entries:
            proc.stdin.write(oid.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().decode().split()
            if len(header) != 3 or header[1] != "blob":
                raise FetchError(
                    f"snapshot {name}: cannot read {path!r} ({oid}) from {url}@{commit}: "
                    f"{' '.join(header) or 'no output'}"
                )
            _write_file(root, path, proc.stdout, int(header[2]), int(mode, 8))
            proc.stdout.read(1)  # the newline after each object
    finally:
        # Close our ends first so that git cannot block on a full pipe, then collect stderr.
        proc.stdin.close()
        proc.stdout.close()
        stderr = proc.stderr.read() if proc.stderr else b""
        rc = proc.wait()
        if proc.stderr:
            proc.stderr.close()
    if rc != 0:
        raise FetchError(
            f"snapshot {name}: `git cat-file --batch` failed (exit {rc}): "
            + stderr.decode("utf-8", "replace").strip()
        )
    return counts


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
