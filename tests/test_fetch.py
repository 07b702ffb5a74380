"""Tests for ``sphragis.fetch`` (SPEC §1: mirror archives, sha256 checks, upstream git fallback)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import socket
import subprocess
import tarfile
import time
from pathlib import Path

import pytest

from sphragis import cli, config, fetch, fetch_transport
from sphragis.fetch import MARKER_NAME, FetchError, UpstreamUnreachable

from conftest import SHARED_SOURCES, require_sources

FAKE_COMMIT = "0123456789abcdef0123456789abcdef01234567"

FILES = {
    "texts/a.tb.xml": b"<treebank>a</treebank>\n",
    "texts/sub/b.tb.xml": b"<treebank>b</treebank>\n",
    "corpus-dev.conllu": b"# sent_id = 1\n1\t\xce\xbb\xe1\xbd\xb9\xce\xb3\xce\xbf\xcf\x82\n\n",
    "README.md": b"readme\n",
    "other/ignored.txt": b"not included\n",
}
PREFIXES = ["texts/", "corpus", "README.md"]
INCLUDED = {k: v for k, v in FILES.items() if not k.startswith("other/")}


# ---------------------------------------------------------------------------- helpers / fixtures


@pytest.fixture(autouse=True)
def _no_env_mirror(monkeypatch):
    monkeypatch.delenv("SPHRAGIS_MIRROR", raising=False)


def make_settings(tmp_path: Path, mirror: Path | None) -> config.Settings:
    return config.Settings(
        mirror=mirror if mirror is not None else tmp_path / "no-mirror",
        data=tmp_path / "data",
        warehouse=tmp_path / "w.duckdb",
        out=tmp_path / "out",
    )


def make_archive(path: Path, files: dict[str, bytes], *, extra: list[tarfile.TarInfo] = ()) -> str:
    """Write a tar.xz holding ``files`` (plus raw ``extra`` members); return its sha256."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:xz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
        for info in extra:
            tar.addfile(info, io.BytesIO(b"x" * info.size) if info.isreg() else None)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(name: str = "demo", **kw) -> dict:
    pin = {
        "name": name,
        "upstream": "file:///nonexistent",
        "commit": FAKE_COMMIT,
        "archive": f"{name}@0123456.tar.xz",
        "sha256": "0" * 64,
        "included_prefixes": list(PREFIXES),
        "missing": [],
    }
    pin.update(kw)
    return pin


@pytest.fixture
def mirror_pin(tmp_path):
    """(settings, pin) for a mirror holding one valid archive of FILES."""
    mirror = tmp_path / "mirror"
    pin = snapshot()
    pin["sha256"] = make_archive(mirror / pin["archive"], FILES)
    return make_settings(tmp_path, mirror), pin


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != MARKER_NAME
    }


def fetch_one(pin: dict, settings: config.Settings, *, force: bool = False) -> fetch.FetchResult:
    """Fetch one pin through the one entry point, :func:`sphragis.fetch.fetch_all`."""
    return fetch.fetch_all(settings, progress=False, snapshots=[pin], force=force)[pin["name"]]


def failure(pin: dict, settings: config.Settings) -> str:
    """The per-snapshot failure line of a one-snapshot fetch (after the ``- ``)."""
    with pytest.raises(FetchError) as exc:
        fetch_one(pin, settings)
    first, line = str(exc.value).split("\n")
    assert first == "1 of 1 snapshots failed:" and line.startswith("- ")
    return line[2:]


def leftovers(data: Path) -> list[str]:
    return sorted(p.name for p in data.iterdir() if p.name.startswith(".")) if data.exists() else []


# ---------------------------------------------------------------------------- mirror mode


def test_mirror_happy_path(mirror_pin):
    settings, pin = mirror_pin
    out = fetch.fetch_all(settings, progress=False, snapshots=[pin])
    root = settings.data / "demo"
    assert list(out) == ["demo"] and out["demo"].path == root
    assert (out["demo"].source, out["demo"].files, out["demo"].skipped) == ("mirror", 4, False)
    assert tree(root) == INCLUDED  # files outside included_prefixes are not unpacked
    marker = json.loads((root / MARKER_NAME).read_text())
    assert (marker["source"], marker["sha256"], marker["commit"], marker["files"]) == (
        "mirror", pin["sha256"], FAKE_COMMIT, len(INCLUDED))
    assert leftovers(settings.data) == []  # no temp dirs left beside the target


def test_mirror_progress_output(mirror_pin, capsys):
    settings, pin = mirror_pin
    fetch.fetch_all(settings, progress=True, snapshots=[pin])
    fetch.fetch_all(settings, progress=True, snapshots=[pin])
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    head = f"fetch: 1 snapshots from the mirror {settings.mirror} into {settings.data}"
    assert lines[0] == lines[2] == head
    assert re.fullmatch(r"  fetched    demo \(mirror, 4 files, \d+\.\d s\)", lines[1]), lines[1]
    assert lines[3] == "  up to date: demo (mirror; 4 files)"  # every snapshot in place: one line
    assert len(lines) == 4


def test_wrong_checksum(mirror_pin):
    settings, pin = mirror_pin
    archive = settings.mirror / pin["archive"]
    actual = pin["sha256"]
    pin["sha256"] = "f" * 64
    assert failure(pin, settings) == f"sha256 mismatch for {archive}: expected {'f' * 64}, got {actual}"
    assert not (settings.data / "demo").exists()
    assert leftovers(settings.data) == []


def test_missing_archive(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    pin = snapshot()
    assert failure(pin, make_settings(tmp_path, mirror)) == (
        f"snapshot demo: archive missing from the mirror: expected {mirror / pin['archive']} "
        "(set SPHRAGIS_MIRROR=none to fetch from upstream instead)")


def test_included_prefix_absent_keeps_previous_snapshot(mirror_pin):
    settings, pin = mirror_pin
    fetch_one(pin, settings)
    before = tree(settings.data / "demo")
    bad = dict(pin, included_prefixes=[*PREFIXES, "LICENSE.txt"])
    assert failure(bad, settings) == (f"snapshot demo: included path(s) 'LICENSE.txt' from the pin list not "
                                      f"found in {settings.mirror / pin['archive']}")
    assert tree(settings.data / "demo") == before  # old snapshot untouched
    assert leftovers(settings.data) == []


def test_idempotent_rerun_and_refetch(mirror_pin):
    settings, pin = mirror_pin
    first = fetch_one(pin, settings)
    assert not first.skipped and first.source == "mirror" and first.files == len(INCLUDED)
    sentinel = settings.data / "demo" / "local-note.txt"
    sentinel.write_text("kept while the marker matches")

    again = fetch_one(pin, settings)
    assert again.skipped and again.files == len(INCLUDED)
    assert sentinel.exists()

    # A new pinned archive (other sha256) replaces the snapshot atomically.
    files2 = dict(FILES, **{"texts/c.tb.xml": b"<treebank>c</treebank>\n"})
    pin2 = dict(pin, sha256=make_archive(settings.mirror / pin["archive"], files2))
    third = fetch_one(pin2, settings)
    assert not third.skipped and third.files == len(INCLUDED) + 1
    assert not sentinel.exists()
    assert "texts/c.tb.xml" in tree(settings.data / "demo")

    # force re-fetches even when the marker matches.
    assert not fetch_one(pin2, settings, force=True).skipped
    assert leftovers(settings.data) == []


def test_corrupt_marker_triggers_refetch(mirror_pin):
    settings, pin = mirror_pin
    fetch_one(pin, settings)
    (settings.data / "demo" / MARKER_NAME).write_text("{not json")
    assert not fetch_one(pin, settings).skipped
    assert fetch.read_marker(settings.data / "demo")["sha256"] == pin["sha256"]


@pytest.mark.parametrize("evil", ["../evil.txt", "texts/../../evil.txt"])
def test_escaping_member_rejected(tmp_path, evil):
    mirror = tmp_path / "mirror"
    pin = snapshot()
    info = tarfile.TarInfo(evil)
    info.size = 1
    pin["sha256"] = make_archive(mirror / pin["archive"], FILES, extra=[info])
    settings = make_settings(tmp_path, mirror)
    msg = failure(pin, settings)
    assert msg.startswith(f"unsafe member {evil!r} in {mirror / pin['archive']}: ")
    assert msg.endswith("; refusing to unpack")
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "data" / "evil.txt").exists()
    assert not (settings.data / "demo").exists()
    assert leftovers(settings.data) == []


def test_absolute_member_stays_inside(tmp_path):
    """tarfile's data filter re-roots ``/tmp/x`` inside the snapshot; outside the prefixes it is skipped."""
    mirror = tmp_path / "mirror"
    pin = snapshot()
    info = tarfile.TarInfo(str(tmp_path / "evil-abs.txt"))
    info.size = 1
    pin["sha256"] = make_archive(mirror / pin["archive"], FILES, extra=[info])
    res = fetch_one(pin, make_settings(tmp_path, mirror))
    assert not (tmp_path / "evil-abs.txt").exists()
    assert tree(res.path) == INCLUDED


def test_link_members_rejected(tmp_path):
    mirror = tmp_path / "mirror"
    link = tarfile.TarInfo("texts/link.xml")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/passwd"
    pin = snapshot()
    pin["sha256"] = make_archive(mirror / pin["archive"], FILES, extra=[link])
    assert failure(pin, make_settings(tmp_path, mirror)).startswith("unsafe member 'texts/link.xml' in ")
    link.linkname = "a.tb.xml"  # inside the snapshot: safe, but not a regular file
    pin["sha256"] = make_archive(mirror / pin["archive"], FILES, extra=[link])
    assert failure(pin, make_settings(tmp_path, mirror)) == (
        f"unsupported member 'texts/link.xml' (not a regular file) in {mirror / pin['archive']}")


def test_invalid_pin_entries(tmp_path):
    settings = make_settings(tmp_path, None)
    assert failure(snapshot(name="../x"), settings) == "pin list entry has an invalid snapshot name: '../x'"
    assert "is not a full lowercase hex sha" in failure(snapshot(commit="abc1234"), settings)
    assert failure(snapshot(included_prefixes=[]), settings) == (
        "snapshot demo: included_prefixes must be a non-empty list of paths")


def test_fetch_all_reports_every_failure(mirror_pin):
    settings, pin = mirror_pin
    bad = snapshot(name="other")
    with pytest.raises(FetchError) as exc:
        fetch.fetch_all(settings, progress=False, snapshots=[bad, pin])
    assert str(exc.value).splitlines() == [
        "1 of 2 snapshots failed:",
        f"- snapshot other: archive missing from the mirror: expected {settings.mirror / bad['archive']} "
        "(set SPHRAGIS_MIRROR=none to fetch from upstream instead)"]
    assert (settings.data / "demo" / "README.md").exists()  # the good one was still fetched


def test_mirror_env_selection(mirror_pin, monkeypatch, tmp_path):
    settings, _ = mirror_pin
    assert fetch.resolve_mirror(settings) == settings.mirror
    assert fetch.resolve_mirror(make_settings(tmp_path, None)) is None  # absent dir: upstream
    for value in ("", "none", "NONE"):
        monkeypatch.setenv("SPHRAGIS_MIRROR", value)
        assert fetch.resolve_mirror(settings) is None
    monkeypatch.setenv("SPHRAGIS_MIRROR", str(tmp_path / "typo"))
    with pytest.raises(FetchError, match="does not exist"):
        fetch.resolve_mirror(config.settings())


def use_pins(monkeypatch, *pins: dict) -> None:
    monkeypatch.setattr(config, "snapshots", lambda: tuple(pins))


def test_cli_fetch_and_list(mirror_pin, monkeypatch, capsys):
    settings, pin = mirror_pin
    monkeypatch.setenv("SPHRAGIS_MIRROR", str(settings.mirror))
    monkeypatch.setenv("SPHRAGIS_DATA", str(settings.data))
    use_pins(monkeypatch, dict(pin, project="demo_project", license="CC0"))
    assert cli.main(["fetch", "--list"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert listing[0].split() == ["snapshot", "project", "commit", "license", "state", "archive", "sha256", "from"]
    # the archive's file name and sha256: what the offline error asks to put in a mirror folder
    assert listing[1].split() == ["demo", "demo_project", FAKE_COMMIT, "CC0", "to", "fetch", pin["archive"],
                                  pin["sha256"], "mirror", str(settings.mirror / pin["archive"])]
    assert cli.main(["fetch", "--quiet"]) == 0
    assert (settings.data / "demo" / "README.md").exists()
    assert cli.main(["fetch", "--list", "demo"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[4] == "unpacked"
    assert cli.main(["fetch", "--quiet", "nope"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "sphragis fetch: error: unknown snapshot(s) nope; pinned: demo"]
    monkeypatch.setenv("SPHRAGIS_MIRROR", "none")
    assert cli.main(["fetch", "--list"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[-2:] == ["upstream", "file:///nonexistent"]


def test_cli_version(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == "sphragis 0.1.0"


# ---------------------------------------------------------------------------- upstream (git) mode


def git(cwd: Path, *args: str) -> str:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
        GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org",
    )
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def upstream(tmp_path):
    """A local git repository: commit 1 = FILES (+ big.conllu, a 'mirror-missing' file), commit 2
    changes README.md. Returns (repo, commit1, tag_object_of_commit1)."""
    repo = tmp_path / "upstream"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "uploadpack.allowReachableSHA1InWant", "true")
    for rel, data in {**FILES, "corpus-train.conllu": b"big file\n"}.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    c1 = git(repo, "rev-parse", "HEAD")
    git(repo, "tag", "-a", "v1", "-m", "annotated")
    tag = git(repo, "rev-parse", "v1")
    (repo / "README.md").write_bytes(b"changed later\n")
    git(repo, "commit", "-q", "-am", "two")
    return repo, c1, tag


def git_pin(repo: Path | str, commit: str, **kw) -> dict:
    url = repo.as_uri() if isinstance(repo, Path) else repo
    return snapshot(upstream=url, commit=commit, missing=["corpus-train.conllu"], **kw)


def test_git_happy_path(tmp_path, upstream):
    repo, c1, _ = upstream
    settings = make_settings(tmp_path, None)  # no mirror dir -> upstream mode
    res = fetch_one(git_pin(repo, c1), settings)
    # Pinned (older) commit, not the branch tip; the mirror-missing file is present upstream.
    assert (res.source, res.files, res.skipped) == ("git", 5, False)
    assert tree(res.path) == {**INCLUDED, "corpus-train.conllu": b"big file\n"}
    marker = fetch.read_marker(res.path)
    assert marker["source"] == "git" and marker["commit"] == c1
    assert leftovers(settings.data) == []
    assert fetch_one(git_pin(repo, c1), settings).skipped


def test_default_mirror_beside_cwd_else_upstream(tmp_path, upstream, monkeypatch, capsys):
    """SPHRAGIS_MIRROR unset: ``../shared/sources`` (from the cwd) if it exists, else upstream git."""
    repo, c1, _ = upstream
    work = tmp_path / "clone"
    work.mkdir()
    monkeypatch.chdir(work)
    pin = git_pin(repo, c1)
    use_pins(monkeypatch, pin)
    assert cli.main(["fetch"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (f"fetch: no mirror at {tmp_path / 'shared' / 'sources'}; fetching 1 pinned commits "
                      f"from their upstream git repositories into {work / 'data' / 'sources'}")
    assert fetch.read_marker(work / "data" / "sources" / "demo")["source"] == "git"

    pin["sha256"] = make_archive(tmp_path / "shared" / "sources" / pin["archive"], FILES)
    assert cli.main(["fetch", "--force"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (f"fetch: 1 snapshots from the mirror {tmp_path / 'shared' / 'sources'} into "
                      f"{work / 'data' / 'sources'}")
    assert fetch.read_marker(work / "data" / "sources" / "demo")["source"] == "mirror"


def test_git_mode_forced_by_env_even_with_mirror(tmp_path, upstream, monkeypatch):
    repo, c1, _ = upstream
    mirror = tmp_path / "mirror"
    mirror.mkdir()  # exists but lacks the archive: would be an error in mirror mode
    monkeypatch.setenv("SPHRAGIS_MIRROR", "none")
    res = fetch_one(git_pin(repo, c1), make_settings(tmp_path, mirror))
    assert res.source == "git" and (res.path / "README.md").read_bytes() == b"readme\n"


def test_git_commit_mismatch(tmp_path, upstream):
    repo, c1, tag = upstream
    # The pin names an annotated tag object: git fetches it fine, but the commit it resolves to
    # is not the pinned sha.
    assert failure(git_pin(repo, tag), make_settings(tmp_path, None)) == (
        f"snapshot demo: commit mismatch for {repo.as_uri()}: pinned {tag}, fetched {c1}")
    assert leftovers(tmp_path / "data") == []


def test_git_unknown_commit(tmp_path, upstream):
    repo, _, _ = upstream
    assert failure(git_pin(repo, FAKE_COMMIT), make_settings(tmp_path, None)) == (
        f"snapshot demo: commit mismatch for {repo.as_uri()}: pinned {FAKE_COMMIT}, fetched nothing "
        "(commit not found upstream)")


def test_git_prefix_and_missing_file_absent(tmp_path, upstream):
    repo, c1, _ = upstream
    settings = make_settings(tmp_path, None)
    assert failure(git_pin(repo, c1, included_prefixes=["LICENSE.txt"]), settings) == (
        f"snapshot demo: included path(s) 'LICENSE.txt' from the pin list not found in {repo.as_uri()} "
        f"at commit {c1}")
    pin = git_pin(repo, c1)
    pin["missing"] = ["corpus-test.conllu"]
    assert failure(pin, settings) == (
        "snapshot demo: file(s) 'corpus-test.conllu' named in the pin list ('missing' from the mirror) "
        f"not found in {repo.as_uri()} at commit {c1}")
    assert leftovers(settings.data) == []


def test_git_fallback_when_server_refuses_sha(tmp_path, upstream, monkeypatch):
    repo, c1, _ = upstream
    git(repo, "config", "--unset", "uploadpack.allowReachableSHA1InWant")
    # Protocol v0 without allowReachableSHA1InWant refuses a non-tip sha ("unadvertised object").
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "protocol.version")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "0")
    res = fetch_one(git_pin(repo, c1), make_settings(tmp_path, None))
    assert res.source == "git" and (res.path / "README.md").read_bytes() == b"readme\n"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _unreachable_message(pin: dict, reason: str) -> str:
    return (f"snapshot demo: cannot reach {pin['upstream']} to fetch commit {pin['commit']} ({reason}). "
            "Two ways out: put the pinned archives (`sphragis fetch --list`) in a mirror folder "
            "(../shared/sources beside the checkout, or any folder named by SPHRAGIS_MIRROR), or run "
            "again with network access to the upstream repositories.")


@pytest.mark.parametrize("where", ["missing-path", "not-a-repo", "closed-port"])
def test_unreachable_upstream_stops_at_once_with_one_message(tmp_path, upstream, where, monkeypatch, capsys):
    """No mirror, no upstream: one message (snapshot, repository, commit, the two ways out), no
    traceback, and the next snapshot is not tried."""
    repo, c1, _ = upstream
    (tmp_path / "not-a-repo").mkdir()
    not_a_repo = "fatal: '{}' does not appear to be a git repository"
    url, reason = {
        "missing-path": (f"file://{tmp_path}/gone.git", not_a_repo.format(f"{tmp_path}/gone.git")),
        "not-a-repo": ((tmp_path / "not-a-repo").as_uri(), not_a_repo.format(f"{tmp_path}/not-a-repo")),
        "closed-port": (f"http://127.0.0.1:{(port := _closed_port())}/repo.git",
                        f"fatal: unable to access 'http://127.0.0.1:{port}/repo.git/': Failed to connect to "
                        f"127.0.0.1 port {port}"),
    }[where]
    bad, good = git_pin(url, c1), git_pin(repo, c1, name="second")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SPHRAGIS_DATA", str(tmp_path / "data"))
    use_pins(monkeypatch, bad, good)
    t0 = time.perf_counter()
    assert cli.main(["fetch"]) == 1
    assert time.perf_counter() - t0 < 10
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines[0].startswith("fetch: no mirror at ")
    before, after = _unreachable_message(bad, "\0").split("\0")
    assert lines[1].startswith("sphragis fetch: error: " + before) and lines[1].endswith(after)
    got = lines[1][len("sphragis fetch: error: " + before):-len(after)]
    # curl words the closed port by version ("... port N after 0 ms: Couldn't connect to server")
    assert got == reason or (where == "closed-port" and got.startswith(reason)), got
    assert len(lines) == 2
    assert not (tmp_path / "data" / "second").exists()  # stopped at the first unreachable upstream
    assert leftovers(tmp_path / "data") == []


def test_silent_upstream_times_out(tmp_path, monkeypatch):
    """A server that accepts the connection and never answers: the reachability check gives up
    after NETWORK_TIMEOUT (set to 2 s here; 30 s by default) instead of waiting for TCP/HTTP timeouts."""
    monkeypatch.setattr(fetch_transport, "NETWORK_TIMEOUT", 2)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)  # the kernel completes the handshake; nobody ever reads or answers
        pin = git_pin(f"http://127.0.0.1:{server.getsockname()[1]}/repo.git", FAKE_COMMIT)
        t0 = time.perf_counter()
        with pytest.raises(UpstreamUnreachable) as exc:
            fetch_one(pin, make_settings(tmp_path, None))
        elapsed = time.perf_counter() - t0
    assert str(exc.value) == _unreachable_message(pin, "no answer within 2 s")
    assert 2 <= elapsed < 10
    assert leftovers(tmp_path / "data") == []


# ---------------------------------------------------------------------------- real mirror


@pytest.mark.integration
def test_real_mirror(tmp_path):
    require_sources()
    settings = make_settings(tmp_path, SHARED_SOURCES)
    t0 = time.perf_counter()
    out = fetch.fetch_all(settings, progress=False)
    elapsed = time.perf_counter() - t0
    assert set(out) == {s["name"] for s in config.snapshots()}
    assert {r.source for r in out.values()} == {"mirror"}
    assert (tmp_path / "data" / "ud-ptnk" / "grc_ptnk-ud-train.conllu").is_file()
    texts = tmp_path / "data" / "agdt" / "v2.1" / "Greek" / "texts"
    assert len([p for p in texts.iterdir() if p.is_file()]) == 31
    for pin in config.snapshots():
        root = out[pin["name"]].path
        assert fetch.read_marker(root)["sha256"] == pin["sha256"]
        for missing in pin["missing"]:
            assert not (root / missing).exists()
        assert any(root.glob(pin["treebank_files"][0])), pin["name"]
    # MANIFEST 'files' counts agree with what was unpacked.
    manifest = json.loads((SHARED_SOURCES / "MANIFEST.json").read_text())
    for snap in manifest["snapshots"]:
        assert fetch.read_marker(out[snap["name"]].path)["files"] == snap["files"], snap["name"]
    t1 = time.perf_counter()
    fetch.fetch_all(settings, progress=False)  # no-op re-run
    assert time.perf_counter() - t1 < 1.0
    assert elapsed < 60
