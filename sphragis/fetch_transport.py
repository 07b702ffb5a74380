"""How a pinned snapshot's bytes arrive (SPEC §1; :mod:`sphragis.fetch` decides which and when):
a mirror archive checked against its sha256 and unpacked, or the pinned commit fetched from its
upstream git repository and unpacked from ``git archive``; with the errors both raise.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import signal
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from sphragis import config

#: Seconds allowed for ``git ls-remote``, the reachability check before each upstream fetch.
NETWORK_TIMEOUT = 30
#: git's low-speed abort (bytes/s, seconds); an explicit ``GIT_HTTP_LOW_SPEED_*`` wins.
LOW_SPEED = ("1000", "30")


class FetchError(RuntimeError):
    """A snapshot could not be fetched; the message names the snapshot and the offending file."""


class UpstreamUnreachable(FetchError):
    """An upstream repository cannot be reached (no mirror, no network): stops the whole fetch."""


def sha256_file(path: Path) -> str:
    """Hex sha256 of the file at ``path`` (streamed). Raises FetchError if it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        raise FetchError(f"cannot read {path}: {exc.strerror or exc}") from exc


def check_archive(archive: Path, pin: Mapping[str, Any]) -> str:
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


def unpack(stream: IO[bytes], pin: Mapping[str, Any], root: Path, where: str) -> int:
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


def from_upstream(pin: Mapping[str, Any], root: Path, data: Path) -> int:
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
            files = unpack(proc.stdout, pin, root, where)
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
