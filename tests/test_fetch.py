"""Tests for ``sphragis.fetch`` (SPEC §1: mirror archives, sha256 checks, upstream git fallback)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import tarfile
import time
from pathlib import Path

import pytest

from sphragis import config, fetch
from sphragis.fetch import MARKER_NAME, FetchError

SHARED_SOURCES = Path(__file__).resolve().parents[1].parent / "shared" / "sources"
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


def leftovers(data: Path) -> list[str]:
    return sorted(p.name for p in data.iterdir() if p.name.startswith(".")) if data.exists() else []


# ---------------------------------------------------------------------------- mirror mode


def test_mirror_happy_path(mirror_pin):
    settings, pin = mirror_pin
    out = fetch.fetch_all(settings, progress=False, snapshots=[pin])
    root = settings.data / "demo"
    assert out == {"demo": root}
    assert tree(root) == INCLUDED  # files outside included_prefixes are not unpacked
    marker = json.loads((root / MARKER_NAME).read_text())
    assert marker["source"] == "mirror"
    assert marker["sha256"] == pin["sha256"]
    assert marker["commit"] == FAKE_COMMIT
    assert marker["files"] == len(INCLUDED)
    assert leftovers(settings.data) == []  # no temp dirs left beside the target


def test_mirror_progress_output(mirror_pin, capsys):
    settings, pin = mirror_pin
    fetch.fetch_all(settings, progress=True, snapshots=[pin])
    fetch.fetch_all(settings, progress=True, snapshots=[pin])
    err = capsys.readouterr().err
    assert "fetched" in err and "up to date" in err and "demo" in err


def test_wrong_checksum(mirror_pin):
    settings, pin = mirror_pin
    archive = settings.mirror / pin["archive"]
    actual = pin["sha256"]
    pin["sha256"] = "f" * 64
    with pytest.raises(FetchError) as exc:
        fetch.fetch_snapshot(pin, settings)
    assert str(exc.value) == f"sha256 mismatch for {archive}: expected {'f' * 64}, got {actual}"
    assert not (settings.data / "demo").exists()
    assert leftovers(settings.data) == []


def test_missing_archive(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    settings = make_settings(tmp_path, mirror)
    pin = snapshot()
    with pytest.raises(FetchError, match="archive missing from the mirror") as exc:
        fetch.fetch_snapshot(pin, settings)
    assert str(mirror / pin["archive"]) in str(exc.value)


def test_included_prefix_absent_keeps_previous_snapshot(mirror_pin):
    settings, pin = mirror_pin
    fetch.fetch_snapshot(pin, settings)
    before = tree(settings.data / "demo")
    bad = dict(pin, included_prefixes=[*PREFIXES, "LICENSE.txt"])
    with pytest.raises(FetchError) as exc:
        fetch.fetch_snapshot(bad, settings)
    msg = str(exc.value)
    assert "'LICENSE.txt'" in msg and pin["archive"] in msg and "not found" in msg
    assert tree(settings.data / "demo") == before  # old snapshot untouched
    assert leftovers(settings.data) == []


def test_idempotent_rerun_and_refetch(mirror_pin):
    settings, pin = mirror_pin
    first = fetch.fetch_snapshot_result(pin, settings)
    assert not first.skipped and first.source == "mirror" and first.files == len(INCLUDED)
    sentinel = settings.data / "demo" / "local-note.txt"
    sentinel.write_text("kept while the marker matches")

    again = fetch.fetch_snapshot_result(pin, settings)
    assert again.skipped and again.files == len(INCLUDED)
    assert sentinel.exists()

    # A new pinned archive (other sha256) replaces the snapshot atomically.
    files2 = dict(FILES, **{"texts/c.tb.xml": b"<treebank>c</treebank>\n"})
    pin2 = dict(pin, sha256=make_archive(settings.mirror / pin["archive"], files2))
    third = fetch.fetch_snapshot_result(pin2, settings)
    assert not third.skipped and third.files == len(INCLUDED) + 1
    assert not sentinel.exists()
    assert "texts/c.tb.xml" in tree(settings.data / "demo")

    # force re-fetches even when the marker matches.
    assert not fetch.fetch_snapshot_result(pin2, settings, force=True).skipped
    assert leftovers(settings.data) == []


def test_corrupt_marker_triggers_refetch(mirror_pin):
    settings, pin = mirror_pin
    fetch.fetch_snapshot(pin, settings)
    (settings.data / "demo" / MARKER_NAME).write_text("{not json")
    assert not fetch.fetch_snapshot_result(pin, settings).skipped
    assert fetch.read_marker(settings.data / "demo")["sha256"] == pin["sha256"]


@pytest.mark.parametrize("evil", ["../evil.txt", "/tmp/evil-abs.txt", "texts/../../evil.txt"])
def test_unsafe_member_rejected(tmp_path, evil):
    mirror = tmp_path / "mirror"
    pin = snapshot()
    info = tarfile.TarInfo(evil)
    info.size = 1
    pin["sha256"] = make_archive(mirror / pin["archive"], FILES, extra=[info])
    settings = make_settings(tmp_path, mirror)
    with pytest.raises(FetchError, match="unsafe member") as exc:
        fetch.fetch_snapshot(pin, settings)
    assert pin["archive"] in str(exc.value)
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "data" / "evil.txt").exists()
    assert not (settings.data / "demo").exists()
    assert leftovers(settings.data) == []


def test_symlink_member_rejected(tmp_path):
    mirror = tmp_path / "mirror"
    pin = snapshot()
    link = tarfile.TarInfo("texts/link.xml")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/passwd"
    pin["sha256"] = make_archive(mirror / pin["archive"], FILES, extra=[link])
    with pytest.raises(FetchError, match="not a regular file"):
        fetch.fetch_snapshot(pin, make_settings(tmp_path, mirror))


def test_invalid_pin_entries(tmp_path):
    settings = make_settings(tmp_path, None)
    with pytest.raises(FetchError, match="invalid snapshot name"):
        fetch.fetch_snapshot(snapshot(name="../x"), settings)
    with pytest.raises(FetchError, match="not a full"):
        fetch.fetch_snapshot(snapshot(commit="abc1234"), settings)
    with pytest.raises(FetchError, match="not a relative path"):
        fetch.fetch_snapshot(snapshot(included_prefixes=["/etc/"]), settings)


def test_fetch_all_reports_every_failure(mirror_pin):
    settings, pin = mirror_pin
    bad = snapshot(name="other")
    with pytest.raises(FetchError) as exc:
        fetch.fetch_all(settings, progress=False, snapshots=[bad, pin])
    msg = str(exc.value)
    assert msg.startswith("1 of 2 snapshots failed")
    assert str(settings.mirror / bad["archive"]) in msg
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


def test_cli_main(mirror_pin, monkeypatch, capsys):
    settings, pin = mirror_pin
    monkeypatch.setenv("SPHRAGIS_MIRROR", str(settings.mirror))
    monkeypatch.setenv("SPHRAGIS_DATA", str(settings.data))
    monkeypatch.setattr(config, "snapshots", lambda: (pin,))
    assert fetch.main(["--quiet"]) == 0
    assert (settings.data / "demo" / "README.md").exists()
    assert fetch.main(["--quiet", "nope"]) == 1
    assert "unknown snapshot" in capsys.readouterr().err
    pin["sha256"] = "e" * 64
    assert fetch.main(["--quiet", "--force"]) == 1
    assert "sha256 mismatch for" in capsys.readouterr().err


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


def git_pin(repo: Path, commit: str, **kw) -> dict:
    return snapshot(upstream=repo.as_uri(), commit=commit, missing=["corpus-train.conllu"], **kw)


def test_git_happy_path(tmp_path, upstream):
    repo, c1, _ = upstream
    settings = make_settings(tmp_path, None)  # no mirror dir -> upstream mode
    out = fetch.fetch_all(settings, progress=False, snapshots=[git_pin(repo, c1)])
    root = out["demo"]
    # Pinned (older) commit, not the branch tip; the mirror-missing file is present upstream.
    assert tree(root) == {**INCLUDED, "corpus-train.conllu": b"big file\n"}
    marker = fetch.read_marker(root)
    assert marker["source"] == "git" and marker["commit"] == c1
    assert leftovers(settings.data) == []
    assert fetch.fetch_snapshot_result(git_pin(repo, c1), settings).skipped


def test_git_mode_forced_by_env_even_with_mirror(tmp_path, upstream, monkeypatch):
    repo, c1, _ = upstream
    mirror = tmp_path / "mirror"
    mirror.mkdir()  # exists but lacks the archive: would be an error in mirror mode
    monkeypatch.setenv("SPHRAGIS_MIRROR", "none")
    res = fetch.fetch_snapshot_result(git_pin(repo, c1), make_settings(tmp_path, mirror))
    assert res.source == "git" and (res.path / "README.md").read_bytes() == b"readme\n"


def test_git_commit_mismatch(tmp_path, upstream):
    repo, c1, tag = upstream
    # The pin names an annotated tag object: git fetches it fine, but the commit it resolves to
    # is not the pinned sha.
    with pytest.raises(FetchError, match="commit mismatch") as exc:
        fetch.fetch_snapshot(git_pin(repo, tag), make_settings(tmp_path, None))
    msg = str(exc.value)
    assert f"pinned {tag}" in msg and f"fetched {c1}" in msg and repo.as_uri() in msg
    assert leftovers(tmp_path / "data") == []


def test_git_unknown_commit(tmp_path, upstream):
    repo, _, _ = upstream
    with pytest.raises(FetchError, match="commit mismatch") as exc:
        fetch.fetch_snapshot(git_pin(repo, FAKE_COMMIT), make_settings(tmp_path, None))
    assert "not found upstream" in str(exc.value)


def test_git_failure_includes_stderr(tmp_path):
    bad = tmp_path / "not-a-repo"
    bad.mkdir()
    with pytest.raises(FetchError) as exc:
        fetch.fetch_snapshot(git_pin(bad, FAKE_COMMIT), make_settings(tmp_path, None))
    msg = str(exc.value)
    assert "`git fetch" in msg and "failed (exit" in msg
    assert "not appear to be a git repository" in msg  # git's own stderr
    assert leftovers(tmp_path / "data") == []


def test_git_prefix_and_missing_file_absent(tmp_path, upstream):
    repo, c1, _ = upstream
    settings = make_settings(tmp_path, None)
    with pytest.raises(FetchError, match="'LICENSE.txt'.*not found in file://"):
        fetch.fetch_snapshot(git_pin(repo, c1, included_prefixes=["LICENSE.txt"]), settings)
    pin = git_pin(repo, c1)
    pin["missing"] = ["corpus-test.conllu"]
    with pytest.raises(FetchError, match="'corpus-test.conllu' named in the pin list"):
        fetch.fetch_snapshot(pin, settings)


def test_git_fallback_when_server_refuses_sha(tmp_path, upstream, monkeypatch):
    repo, c1, _ = upstream
    git(repo, "config", "--unset", "uploadpack.allowReachableSHA1InWant")
    # Protocol v0 without allowReachableSHA1InWant refuses a non-tip sha ("unadvertised object").
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "protocol.version")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "0")
    res = fetch.fetch_snapshot_result(git_pin(repo, c1), make_settings(tmp_path, None))
    assert res.source == "git" and (res.path / "README.md").read_bytes() == b"readme\n"


# ---------------------------------------------------------------------------- real mirror


@pytest.mark.integration
def test_real_mirror(tmp_path):
    if not (SHARED_SOURCES / "MANIFEST.json").is_file():
        pytest.skip(f"../shared/sources absent: {SHARED_SOURCES} (integration test needs the mirror)")
    settings = make_settings(tmp_path, SHARED_SOURCES)
    t0 = time.perf_counter()
    out = fetch.fetch_all(settings, progress=False)
    elapsed = time.perf_counter() - t0
    assert set(out) == {s["name"] for s in config.snapshots()}
    assert (tmp_path / "data" / "ud-ptnk" / "grc_ptnk-ud-train.conllu").is_file()
    texts = tmp_path / "data" / "agdt" / "v2.1" / "Greek" / "texts"
    assert len([p for p in texts.iterdir() if p.is_file()]) == 31
    for pin in config.snapshots():
        root = out[pin["name"]]
        assert fetch.read_marker(root)["sha256"] == pin["sha256"]
        for missing in pin["missing"]:
            assert not (root / missing).exists()
        assert any(root.glob(pin["treebank_files"][0])), pin["name"]
    # MANIFEST 'files' counts agree with what was unpacked.
    manifest = json.loads((SHARED_SOURCES / "MANIFEST.json").read_text())
    for snap in manifest["snapshots"]:
        assert fetch.read_marker(out[snap["name"]])["files"] == snap["files"], snap["name"]
    t1 = time.perf_counter()
    fetch.fetch_all(settings, progress=False)  # no-op re-run
    assert time.perf_counter() - t1 < 1.0
    assert elapsed < 60
