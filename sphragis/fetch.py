"""``sphragis fetch``: unpack the pinned upstream snapshots into the data directory (SPEC §1).

Each snapshot of the pin list (:func:`sphragis.config.snapshots`) becomes ``<data>/<name>/``: the
upstream files whose path starts with one of its ``included_prefixes`` (plain string prefixes:
``"grc_perseus"`` matches ``grc_perseus-ud-dev.conllu``), at their upstream relative paths.

Where the files come from (:func:`resolve_mirror`, said on the first output line):

* **Mirror**: ``SPHRAGIS_MIRROR`` names a folder of ``<archive>.tar.xz`` files (by default
  ``../shared/sources``, used when it exists). The archive's sha256 is checked before anything is
  unpacked; the pinned ``missing`` files (4 MiB or larger) are not in the mirror.
* **Upstream**: no mirror folder, or ``SPHRAGIS_MIRROR=none``. ``git fetch --depth 1 <url>
  <commit>`` (or the branches, if the server refuses an unadvertised sha), checked against the pin;
  the ``missing`` files must be present. A first ``git ls-remote`` has ``NETWORK_TIMEOUT`` and
  transfers under 1 KB/s for 30 s abort, so offline the fetch stops within a minute with one
  :class:`UpstreamUnreachable` message (snapshot, repository, commit, the two ways out; both in
  :mod:`sphragis.fetch_transport`).

Both feed one tar unpacker (the archive, or ``git archive <commit>`` streamed); member safety is
tarfile's ``data`` filter, and only regular files are taken. Files go to a temporary folder renamed
into place when complete (an interrupted fetch keeps the previous snapshot); the marker
``<data>/<name>/.sphragis-snapshot.json`` makes a re-run of an unchanged pin a no-op.

The marker also records the sha256 of every file unpacked (``file_sha256``): ``sphragis build``
checks the files it reads against it (:func:`verify_sources`) and refuses a pinned file edited
or missing, or a file that fetch did not unpack, naming it (SPEC §1, §13). A fetch holds a lock
on ``<data>`` (``flock`` of the directory: a second fetch fails fast) and first removes what an
interrupted fetch left there (``.<name>.tmp-*``, ``.<name>.git-*``, ``<name>.old-*``).
"""

from __future__ import annotations

import contextlib
import fcntl
import fnmatch
import glob
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sphragis import config
from sphragis.fetch_transport import (
    FetchError,
    UpstreamUnreachable,
    check_archive,
    from_upstream,
    sha256_file,
    unpack,
)
from sphragis.files import read_json_record, replace_dir

#: Marker file written inside every unpacked snapshot (``<data>/<name>/.sphragis-snapshot.json``).
MARKER_NAME = ".sphragis-snapshot.json"
#: Version of the marker layout; a marker with another version is treated as stale (version 2
#: added ``file_sha256``, the record the build checks the sources against).
MARKER_VERSION = 2

NO_MIRROR_VALUES = {"", "none"}
_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_SNAPSHOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]*")


class SourcesChanged(FetchError):
    """A file a build would read differs from what fetch unpacked (:func:`verify_sources`)."""


@dataclass(frozen=True)
class FetchResult:
    """One snapshot: ``path`` = ``<data>/<name>``; ``source`` ``"mirror"`` or ``"git"``; ``files``
    unpacked (from the marker when ``skipped``, i.e. already up to date); ``seconds`` of wall time."""

    name: str
    path: Path
    source: str
    files: int
    skipped: bool
    seconds: float


def resolve_mirror(settings: config.Settings | None = None) -> Path | None:
    """The mirror folder to unpack from, or ``None`` for upstream git (SPEC §1 source rule).

    ``None`` when ``SPHRAGIS_MIRROR`` is ``none`` or empty (any case), or when it is unset and the
    default (``settings.mirror``, normally ``../shared/sources``) does not exist.

    Raises:
        FetchError: ``SPHRAGIS_MIRROR`` names a folder that does not exist (a typo would otherwise
            silently switch to network fetches).
    """
    settings = settings or config.settings()
    env = os.environ.get("SPHRAGIS_MIRROR")
    if env is not None and env.strip().lower() in NO_MIRROR_VALUES:
        return None
    mirror = Path(settings.mirror)
    if mirror.is_dir():
        return mirror
    if env is not None and mirror == config._path("SPHRAGIS_MIRROR", env):
        raise FetchError(f"SPHRAGIS_MIRROR={env!r}: mirror directory {mirror} does not exist "
                         "(unset SPHRAGIS_MIRROR or set it to 'none' to fetch from upstream)")
    return None


def plan(settings: config.Settings | None = None,
         snapshots: Iterable[Mapping[str, Any]] | None = None) -> list[dict[str, str]]:
    """What ``sphragis fetch`` would do (``sphragis fetch --list``); raises as :func:`resolve_mirror`.

    Returns:
        ``[{"snapshot", "project", "commit", "license", "archive", "sha256", "from", "state"}]`` in
        pin-list order; ``archive``, ``sha256``: the file name a mirror folder must hold and its
        pinned sha256 (what the offline error asks for); ``from``: ``mirror <archive path>`` or ``upstream <git url>``; ``state``: ``"unpacked"``
        (the marker in ``<data>/<name>`` matches the pin) or ``"to fetch"``.
    """
    settings = settings or config.settings()
    mirror = resolve_mirror(settings)
    return [{
        "snapshot": pin["name"], "project": pin.get("project", ""), "commit": pin["commit"],
        "license": pin.get("license", ""), "archive": pin.get("archive", ""), "sha256": pin.get("sha256", ""),
        "from": f"mirror {mirror / pin['archive']}" if mirror else f"upstream {pin.get('upstream')}",
        "state": "unpacked" if _marker_matches(read_marker(Path(settings.data) / pin["name"]), pin)
        else "to fetch",
    } for pin in (config.snapshots() if snapshots is None else snapshots)]


def read_marker(target: Path) -> dict[str, Any] | None:
    """The parsed marker ``<target>/.sphragis-snapshot.json``, or ``None`` if absent or unreadable.

    Keys: version (2), name, source ("mirror"/"git"), upstream, commit, archive, sha256 (pinned),
    included_prefixes, files, file_sha256 (path relative to ``target`` → sha256 of every file
    unpacked)."""
    return read_json_record(target / MARKER_NAME)


def fetch_all(settings: config.Settings | None = None, *, progress: bool = True,
              snapshots: Iterable[Mapping[str, Any]] | None = None,
              force: bool = False) -> dict[str, FetchResult]:
    """Fetch the pinned snapshots (SPEC §1) into ``<settings.data>/<name>/``; the one entry point.

    ``settings`` default :func:`sphragis.config.settings` (mirror or upstream: :func:`resolve_mirror`,
    said on stderr); ``progress`` prints that line, one line per snapshot and, on a terminal, a
    progress bar to stderr; ``snapshots`` default the pin list; ``force`` re-fetches snapshots already in place.
    Returns ``{snapshot name: FetchResult}`` in pin-list order.

    Raises:
        UpstreamUnreachable: at the first unreachable upstream (the rest would wait on the same
            network); snapshots already fetched stay in place.
        FetchError: after trying every snapshot, if any failed; one line per failure naming its
            file (wrong sha256, archive missing, prefix absent, commit mismatch, git failure).
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    settings = settings or config.settings()
    pins = list(config.snapshots() if snapshots is None else snapshots)
    mirror = resolve_mirror(settings)  # fails fast on a mistyped SPHRAGIS_MIRROR
    console = Console(stderr=True, quiet=not progress, soft_wrap=True, highlight=False)
    if mirror:
        console.print(f"fetch: {len(pins)} snapshots from the mirror {mirror} into {settings.data}")
    else:
        env = os.environ.get("SPHRAGIS_MIRROR")
        why = f"SPHRAGIS_MIRROR={env!r}" if env is not None else f"no mirror at {settings.mirror}"
        console.print(f"fetch: {why}; fetching {len(pins)} pinned commits from their upstream git "
                      f"repositories into {settings.data}")
    results: dict[str, FetchResult] = {}
    errors: list[str] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with _fetch_lock(Path(settings.data)), Progress(*columns, console=console, transient=True,
                                                    disable=not (progress and console.is_terminal)) as bar:
        for leftover in remove_leftovers(Path(settings.data), pins):
            console.print(f"  removed {leftover} (left by an interrupted fetch)", markup=False)
        task = bar.add_task("fetch", total=len(pins))
        for pin in pins:
            bar.update(task, description=f"fetch {pin.get('name')}")
            try:
                res = results[pin["name"]] = _fetch_one(pin, settings, mirror, force)
            except FetchError as exc:
                if isinstance(exc, UpstreamUnreachable):
                    raise
                errors.append(str(exc))
                console.print(f"  FAILED     {pin.get('name')}: {exc}", style="red", markup=False)
            else:
                if not res.skipped:
                    console.print(f"  fetched    {res.name} ({res.source}, {res.files} files, {res.seconds:.1f} s)",
                                  markup=False)
            bar.advance(task)
    # the snapshots already in place: one line for all of them, not one line each
    kept = [r for r in results.values() if r.skipped]
    if kept:
        console.print(f"  up to date: {', '.join(r.name for r in kept)} "
                      f"({', '.join(sorted({r.source for r in kept}))}; {sum(r.files for r in kept)} files)",
                      markup=False)
    if errors:
        raise FetchError(f"{len(errors)} of {len(pins)} snapshots failed:\n"
                         + "\n".join(f"- {e}" for e in errors))
    return results


@contextlib.contextmanager
def _fetch_lock(data: Path):
    """Hold an exclusive ``flock`` on the data directory itself for the duration (no lock file is
    left in it); FetchError if another fetch holds it."""
    try:
        data.mkdir(parents=True, exist_ok=True)
        fd = os.open(data, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise FetchError(f"cannot open the data directory {data}: {exc.strerror or exc}") from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FetchError(f"another fetch is running into {data}; wait for it to finish") from None
        yield
    finally:
        os.close(fd)


def remove_leftovers(data: Path, pins: Iterable[Mapping[str, Any]]) -> list[Path]:
    """Delete what interrupted fetches left in ``data`` for the pinned snapshot names: temporary
    folders ``.<name>.tmp-*`` and ``.<name>.git-*`` and a previous snapshot ``<name>.old-*`` left
    by a swap cut short (:func:`sphragis.files.replace_dir`). Call only while holding the fetch
    lock (no other fetch can be writing them then). Returns the paths removed."""
    removed = []
    for pin in pins:
        name = pin.get("name")
        if not isinstance(name, str) or not _SNAPSHOT_NAME.fullmatch(name):
            continue
        for pattern in (f".{name}.tmp-*", f".{name}.git-*", f"{name}.old-*"):
            for p in data.glob(glob.escape(pattern[:-1]) + "*"):
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    p.unlink(missing_ok=True)
                removed.append(p)
    return removed


def _fetch_one(pin: Mapping[str, Any], settings: config.Settings, mirror: Path | None,
               force: bool) -> FetchResult:
    started = time.perf_counter()
    name = _validate(pin)
    data = Path(settings.data)
    target = data / name
    marker = read_marker(target)
    if not force and marker is not None and _marker_matches(marker, pin):
        return FetchResult(name, target, str(marker.get("source")), int(marker.get("files", 0)), True,
                           time.perf_counter() - started)
    archive = mirror / str(pin.get("archive")) if mirror is not None else None
    source = "git" if archive is None else check_archive(archive, pin)  # before any temporary folder
    try:
        data.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=data))
        os.chmod(tmp, 0o755)  # mkdtemp makes 0700; the snapshot root should look like any folder
    except OSError as exc:
        raise FetchError(f"cannot create a folder in the data directory {data}: {exc.strerror or exc}") from exc
    try:
        if archive is not None:
            with open(archive, "rb") as fh:
                files = unpack(fh, pin, tmp, str(archive))
        else:
            files = from_upstream(pin, tmp, data)
        _write_marker(tmp, pin, source, files)
        _swap_into_place(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return FetchResult(name, target, source, files, False, time.perf_counter() - started)


def _validate(pin: Mapping[str, Any]) -> str:
    name = pin.get("name")
    if not isinstance(name, str) or not _SNAPSHOT_NAME.fullmatch(name) or ".." in name:
        raise FetchError(f"pin list entry has an invalid snapshot name: {name!r}")
    if not isinstance(pin.get("commit"), str) or not _FULL_SHA.fullmatch(pin["commit"]):
        raise FetchError(f"snapshot {name}: pinned commit {pin.get('commit')!r} is not a full lowercase hex sha")
    prefixes = pin.get("included_prefixes")
    if not isinstance(prefixes, list) or not prefixes or not all(isinstance(p, str) and p for p in prefixes):
        raise FetchError(f"snapshot {name}: included_prefixes must be a non-empty list of paths")
    return name


def _marker_matches(marker: Mapping[str, Any] | None, pin: Mapping[str, Any]) -> bool:
    """Same layout version, name, commit and prefixes; a git snapshot (the commit's own files, a
    superset of any mirror archive of it) or a mirror snapshot of the pinned archive sha256."""
    if not marker:
        return False
    same = (marker.get("version"), marker.get("name"), marker.get("commit"), marker.get("included_prefixes"))
    if same != (MARKER_VERSION, pin["name"], pin["commit"], list(pin["included_prefixes"])):
        return False
    return marker.get("source") == "git" or (marker.get("source") == "mirror"
                                             and marker.get("sha256") == pin.get("sha256"))


def _write_marker(root: Path, pin: Mapping[str, Any], source: str, files: int) -> None:
    """Write the marker of the snapshot unpacked in ``root``, with the sha256 of every file in it.
    (``json.dumps`` escapes a file name's undecodable bytes, so any name round-trips.)"""
    record = {p.relative_to(root).as_posix(): sha256_file(p) for p in sorted(root.rglob("*")) if p.is_file()}
    marker = {"version": MARKER_VERSION, "name": pin["name"], "source": source,
              "upstream": pin.get("upstream"), "commit": pin["commit"], "archive": pin.get("archive"),
              "sha256": pin.get("sha256"), "included_prefixes": list(pin["included_prefixes"]),
              "files": files, "file_sha256": record}
    (root / MARKER_NAME).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")


def verify_sources(roots: Mapping[str, Path], files: Iterable[Any], digests: Mapping[str, str], *,
                   when: str = "since fetch") -> list[str]:
    """Check the files a build reads against the record fetch made of each snapshot (SPEC §1, §13).

    Args:
        roots: snapshot name → unpacked folder.
        files: the treebank files the build reads (:class:`sphragis.ingest.sources.SourceFile`).
        digests: ``str(abspath)`` → sha256 of each of ``files`` as it is now (the build's
            :func:`sphragis.build.source_digests`: hashed only when size, mtime... changed), or
            of the bytes the ingest parsed (``raw_files.sha256``).
        when: how a file whose sha256 differs changed, for the message ("since fetch"; "while
            the build read it" for the bytes parsed).

    Returns:
        The names of the snapshots without a marker (laid out by hand, not by fetch): not verified.

    Raises:
        SourcesChanged: naming the first offending file (and how many more there are) with the way
            out (``sphragis fetch --force NAME``): a file edited since fetch, a treebank file fetch
            did not unpack, a pinned treebank file missing, or a marker without a file record
            (written by an older sphragis).
    """
    by_snapshot: dict[str, list] = {}
    for f in files:
        by_snapshot.setdefault(f.snapshot["name"], []).append(f)
    problems: list[str] = []
    unverified: list[str] = []
    for name, snap_files in sorted(by_snapshot.items()):
        root = roots[name]
        marker = read_marker(root)
        if marker is None:
            unverified.append(name)
            continue
        record = marker.get("file_sha256")
        way_out = f"run `sphragis fetch --force {name}`"
        if not isinstance(record, dict):
            problems.append(f"snapshot {name} at {root} has no record of its files (unpacked by an older "
                            f"sphragis); run `sphragis fetch` (it re-fetches such snapshots)")
            continue
        seen = set()
        for f in snap_files:
            rel = f.abspath.relative_to(root).as_posix()
            seen.add(rel)
            if rel not in record:
                problems.append(f"{f.abspath}: not in the pinned snapshot {name} (appeared after fetch); "
                                f"remove it or {way_out}")
            elif digests[str(f.abspath)] != record[rel]:
                problems.append(f"{f.abspath}: changed {when} (sha256 {digests[str(f.abspath)][:12]}…, pinned "
                                f"{record[rel][:12]}…); {way_out} to restore the pinned file")
        snap = snap_files[0].snapshot
        for rel in sorted(set(record) - seen):
            read = any(fnmatch.fnmatch(rel, g) for g in snap["treebank_files"]) and not any(
                fnmatch.fnmatch(rel, ex) for ex in snap.get("exclude", []))
            if read and not (root / rel).exists():
                problems.append(f"{root / rel}: pinned file missing since fetch; {way_out}")
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise SourcesChanged(f"sources differ from the fetched snapshots{more}: {problems[0]}")
    return unverified


def _swap_into_place(tmp: Path, target: Path) -> None:
    """Rename the complete ``tmp`` to ``target`` (:func:`sphragis.files.replace_dir`)."""
    try:
        replace_dir(tmp, target)
    except OSError as exc:
        raise FetchError(f"cannot move {tmp} into place as {target}: {exc.strerror or exc}") from exc


