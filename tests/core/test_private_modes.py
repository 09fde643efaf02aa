"""Issue 25, finding 9: data derived from memory is no wider than memory itself.

The search cache (every record's text) and the archive stamps are created owner-only, and a root
whose derived folders were made wider (by an older version, a restore, a umask) is tightened on
open. On the code before issue 25 ``.manager/cache`` was 0755, the database and its -wal/-shm 0644."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

from core.cli.main import main
from core.models import PutOp, Record
from core.store.fs import FileStore

CWD = "/home/ada/projects/atlas"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _seeded(root: Path) -> str:
    store = FileStore(root)
    snap = store.create_workspace(CWD)
    record = Record(name="deploy", description="How we deploy", type="project", body="\nfly.io\n")
    store.commit(snap.key, [PutOp(record=record)], snap.revision)
    return snap.key


def test_derived_files_and_folders_are_created_owner_only(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        root = tmp_path / "memory"
        key = _seeded(root)
        assert main(["--root", str(root), "search", "fly"], stdout=io.StringIO(), stderr=io.StringIO()) == 0
        assert main(["--root", str(root), "archive", "--key", key], stdout=io.StringIO(), stderr=io.StringIO()) == 0
    finally:
        os.umask(old)
    cache = root / ".manager" / "cache"
    assert _mode(cache) == 0o700
    files = [p for p in cache.rglob("*") if p.is_file()]
    assert files  # the index is there
    for path in [*files, *(p for p in cache.rglob("*") if p.is_dir())]:
        assert _mode(path) & 0o077 == 0, (path.name, oct(_mode(path)))
    archive = root / ".manager" / "archive"
    assert _mode(archive) == 0o700
    for path in archive.iterdir():
        assert _mode(path) & 0o077 == 0, (path.name, oct(_mode(path)))


def test_wider_derived_data_is_tightened_when_the_root_is_opened(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    _seeded(root)
    assert main(["--root", str(root), "search", "fly"], stdout=io.StringIO(), stderr=io.StringIO()) == 0
    cache = root / ".manager" / "cache"
    archive = root / ".manager" / "archive"
    archive.mkdir(exist_ok=True)
    (archive / "stamp.json").write_text("{}")
    outside = tmp_path / "outside.txt"
    outside.write_text("not ours to change")
    outside.chmod(0o644)
    (cache / "link").symlink_to(outside)
    folders = [cache, archive, *(p for p in cache.rglob("*") if p.is_dir() and not p.is_symlink())]
    files = [p for p in [*cache.rglob("*"), *archive.iterdir()] if p.is_file() and not p.is_symlink()]
    for path in folders:
        path.chmod(0o755)
    for path in files:
        path.chmod(0o644)
    FileStore(root)  # open
    for path in folders:
        assert _mode(path) == 0o700, path
    for path in files:
        assert _mode(path) == 0o600, path
    assert _mode(outside) == 0o644  # a link is never followed
