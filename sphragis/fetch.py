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
  the ``missing`` files must be present. A first ``git ls-remote`` has :data:`NETWORK_TIMEOUT` and
  transfers under 1 KB/s for 30 s abort, so offline the fetch stops within a minute with one
  :class:`UpstreamUnreachable` message (snapshot, repository, commit, the two ways out).

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
import hashlib
import json
import os
import posixpath
import re
import shutil
import signal
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from sphragis import config
from sphragis.files import replace_dir

#: Marker file written inside every unpacked snapshot (``<data>/<name>/.sphragis-snapshot.json``).
MARKER_NAME = ".sphragis-snapshot.json"
#: Version of the marker layout; a marker with another version is treated as stale (version 2
#: added ``file_sha256``, the record the build checks the sources against).
MARKER_VERSION = 2

#: Seconds allowed for ``git ls-remote``, the reachability check before each upstream fetch.
NETWORK_TIMEOUT = 30
#: git's low-speed abort (bytes/s, seconds); an explicit ``GIT_HTTP_LOW_SPEED_*`` wins.
LOW_SPEED = ("1000", "30")

_NO_MIRROR_VALUES = {"", "none"}
_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_SNAPSHOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]*")


class FetchError(RuntimeError):
    """A snapshot could not be fetched; the message names the snapshot and the offending file."""


class UpstreamUnreachable(FetchError):
    """An upstream repository cannot be reached (no mirror, no network): stops the whole fetch."""


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


def sha256_file(path: Path) -> str:
    """Hex sha256 of the file at ``path`` (streamed). Raises FetchError if it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        raise FetchError(f"cannot read {path}: {exc.strerror or exc}") from exc


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
    if env is not None and env.strip().lower() in _NO_MIRROR_VALUES:
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
    try:
        marker = json.loads((target / MARKER_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) else None


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
                state = "up to date" if res.skipped else "fetched   "
                console.print(f"  {state} {res.name} ({res.source}, {res.files} files, {res.seconds:.1f} s)",
                              markup=False)
            bar.advance(task)
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
    source = "git" if archive is None else _check_archive(archive, pin)  # before any temporary folder
    try:
        data.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=data))
        os.chmod(tmp, 0o755)  # mkdtemp makes 0700; the snapshot root should look like any folder
    except OSError as exc:
        raise FetchError(f"cannot create a folder in the data directory {data}: {exc.strerror or exc}") from exc
    try:
        if archive is not None:
            with open(archive, "rb") as fh:
                files = _unpack(fh, pin, tmp, str(archive))
        else:
            files = _from_upstream(pin, tmp, data)
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


def verify_sources(roots: Mapping[str, Path], files: Iterable[Any], digests: Mapping[str, str]) -> list[str]:
    """Check the files a build reads against the record fetch made of each snapshot (SPEC §1, §13).

    Args:
        roots: snapshot name → unpacked folder.
        files: the treebank files the build reads (:class:`sphragis.ingest.sources.SourceFile`).
        digests: ``str(abspath)`` → sha256 of each of ``files`` as it is now (the build's
            :func:`sphragis.build.source_digests`: hashed only when size, mtime... changed).

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
                problems.append(f"{f.abspath}: changed since fetch (sha256 {digests[str(f.abspath)][:12]}…, pinned "
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


def _check_archive(archive: Path, pin: Mapping[str, Any]) -> str:
    """``"mirror"`` if ``archive`` is there with the pinned sha256, else FetchError naming it."""
    if not pin.get("archive") or not pin.get("sha256"):
        raise FetchError(f"snapshot {pin['name']}: pin list entry lacks 'archive' or 'sha256'")
    if not archive.is_file():
        raise FetchError(f"snapshot {pin['name']}: archive missing from the mirror: expected {archive} "
                         "(set SPHRAGIS_MIRROR=none to fetch from upstream instead)")
    expected, got = str(pin["sha256"]).lower(), sha256_file(archive)
    if got != expected:
        raise FetchError(f"sha256 mismatch for {archive}: expected {expected}, got {got}")
    return "mirror"


def _unpack(stream: IO[bytes], pin: Mapping[str, Any], root: Path, where: str) -> int:
    """Unpack the regular files under the pin's included prefixes from the tar ``stream`` (any
    compression) into ``root``; returns the number of files. ``where`` names the archive in errors."""
    counts = dict.fromkeys(pin["included_prefixes"], 0)

    def members(tar: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
        for member in tar:
            try:
                safe = tarfile.data_filter(member, str(root))
            except tarfile.FilterError as exc:
                raise FetchError(f"unsafe member {member.name!r} in {where}: {exc}; refusing to unpack") from exc
            rel = posixpath.normpath(safe.name)
            prefix = next((p for p in counts if rel.startswith(p)), None)
            if prefix is None or safe.isdir():
                continue
            if not safe.isreg():
                raise FetchError(f"unsupported member {member.name!r} (not a regular file) in {where}")
            counts[prefix] += 1
            yield member

    try:
        with tarfile.open(fileobj=stream, mode="r|*") as tar:
            tar.extractall(root, members=members(tar), filter="data")
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise FetchError(f"cannot unpack {where}: {exc}") from exc
    absent = [p for p, n in counts.items() if not n]
    if absent:
        raise FetchError(f"snapshot {pin['name']}: included path(s) {', '.join(map(repr, absent))} from "
                         f"the pin list not found in {where}")
    return sum(counts.values())


def _git(args: list[str], cwd: Path, *, timeout: float | None = None) -> subprocess.CompletedProcess:
    """Run git quietly (no prompts); on ``timeout`` its whole process group is killed and the
    result has return code ``None``. Raises FetchError when git is not installed."""
    env = {"GIT_ASKPASS": "true", "GIT_HTTP_LOW_SPEED_LIMIT": LOW_SPEED[0], "GIT_HTTP_LOW_SPEED_TIME": LOW_SPEED[1],
           **os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        proc = subprocess.Popen(["git", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except FileNotFoundError as exc:
        raise FetchError("git is not installed (needed to fetch from upstream without a mirror)") from exc
    try:
        out, err = proc.communicate(timeout=timeout)
        return subprocess.CompletedProcess(args, proc.returncode, out, err)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # git and its remote helper, started by us
        out, err = proc.communicate()
        return subprocess.CompletedProcess(args, None, out, err + f"no answer within {timeout} s".encode())


def _stderr(proc: subprocess.CompletedProcess) -> str:
    """The first ``fatal:``/``error:`` line of git's stderr, else its last line."""
    lines = (proc.stderr or b"").decode("utf-8", "replace").strip().splitlines() or [f"exit {proc.returncode}"]
    return next((ln for ln in lines if ln.startswith(("fatal:", "error:"))), lines[-1])


def _from_upstream(pin: Mapping[str, Any], root: Path, data: Path) -> int:
    """Fetch the pinned commit into a scratch bare repository and unpack ``git archive`` of it."""
    name, commit, url = pin["name"], pin["commit"], pin.get("upstream")
    if not url:
        raise FetchError(f"snapshot {name}: pin list entry lacks 'upstream' (no mirror present)")
    with tempfile.TemporaryDirectory(prefix=f".{name}.git-", dir=data) as gdir:
        repo = Path(gdir)
        _git(["init", "--quiet", "--bare", "."], repo)
        probe = _git(["ls-remote", url, "HEAD"], repo, timeout=NETWORK_TIMEOUT)
        if probe.returncode != 0:
            raise UpstreamUnreachable(
                f"snapshot {name}: cannot reach {url} to fetch commit {commit} "
                f"({_stderr(probe)}). Two ways out: put the pinned archives "
                f"(`sphragis fetch --list`) in a mirror folder ({config.DEFAULT_MIRROR} beside the "
                "checkout, or any folder named by SPHRAGIS_MIRROR), or run again with network access "
                "to the upstream repositories.")
        shallow = _git(["fetch", "--quiet", "--no-tags", "--depth", "1", url, commit], repo)
        ref = "FETCH_HEAD"
        if shallow.returncode != 0:  # a server refusing an unadvertised sha: fetch the branches
            full = _git(["fetch", "--quiet", url, "+refs/heads/*:refs/remotes/upstream/*",
                         "+refs/tags/*:refs/tags/*"], repo)
            if full.returncode != 0:
                raise FetchError(f"snapshot {name}: `git fetch --depth 1 {url} {commit}` failed: "
                                 f"{_stderr(shallow)} (full fetch fallback also failed: {_stderr(full)})")
            ref = commit
        got = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], repo)
        fetched = got.stdout.decode().strip() if got.returncode == 0 else ""
        if fetched != commit:
            raise FetchError(f"snapshot {name}: commit mismatch for {url}: pinned {commit}, fetched "
                             f"{fetched or 'nothing (commit not found upstream)'}")
        where = f"{url} at commit {commit}"
        with subprocess.Popen(["git", "archive", "--format=tar", commit], cwd=repo, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
            assert proc.stdout is not None and proc.stderr is not None
            files = _unpack(proc.stdout, pin, root, where)
            proc.stdout.read()  # the tar padding, so that git exits normally
            err = proc.stderr.read()
            if proc.wait() != 0:
                raise FetchError(f"snapshot {name}: `git archive {commit}` failed: "
                                 + err.decode("utf-8", "replace").strip())
    absent = [m for m in pin.get("missing") or [] if not (root / m).is_file()]
    if absent:
        raise FetchError(f"snapshot {name}: file(s) {', '.join(map(repr, absent))} named in the pin list "
                         f"('missing' from the mirror) not found in {where}")
    return files
