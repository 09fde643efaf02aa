"""Issue 9, item 5: a read-only root can be read (without locks); writes fail with a clear typed error."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_support import CWD, disk, rec

from core.cli.main import main
from core.errors import ReadOnlyRootError
from core.models import PutOp
from core.store.files import RECEIPTS
from core.store.fs import FileStore


def _populate(root: Path) -> str:
    store = FileStore(root)
    store.replace_global("# Global\n\nBe brief.\n", None)
    s = store.create_workspace(CWD)
    store.commit(s.key, [PutOp(record=rec("fact", "\nThe build uses pnpm.\n"))], s.revision)
    return s.key


@pytest.fixture
def ro_root(tmp_path: Path) -> Iterator[Path]:
    """A real read-only bind mount of a populated root."""
    if os.geteuid() != 0 or not sys.platform.startswith("linux"):
        pytest.skip("a read-only bind mount needs root on Linux")
    src = tmp_path / "src"
    _populate(src)
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if subprocess.run(["mount", "--bind", str(src), str(mnt)], capture_output=True).returncode:
        pytest.skip("this machine does not allow bind mounts")
    try:
        if subprocess.run(["mount", "-o", "remount,ro,bind", str(mnt)], capture_output=True).returncode:
            pytest.skip("this machine does not allow read-only remounts")
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def cli(root: Path, *args: str) -> tuple[int, dict[str, object]]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["--root", str(root), "--json", *args], stdout=out, stderr=err)
    return code, json.loads(out.getvalue())


def test_reads_work_on_a_read_only_mount(ro_root: Path) -> None:
    before = disk(ro_root, skip_manager=False)
    for args in (["status"], ["global", "show"], ["workspaces"], ["show", "--cwd", CWD], ["check"]):
        code, out = cli(ro_root, *args)
        assert code in (0, 1) and "error" not in out, (args, out)
    code, out = cli(ro_root, "status")
    assert out["read_only"] is True
    code, out = cli(ro_root, "show", "--cwd", CWD)
    assert [r["name"] for r in out["records"]] == ["fact"]  # type: ignore[index]
    assert disk(ro_root, skip_manager=False) == before


def test_search_works_on_a_read_only_mount(ro_root: Path) -> None:
    code, out = cli(ro_root, "search", "pnpm")
    assert code == 0 and "error" not in out, out


def test_writes_fail_with_a_clear_read_only_error(ro_root: Path, tmp_path: Path) -> None:
    store = FileStore(ro_root)
    assert store.inspect.read_only and store.status().read_only
    snap = store.find_workspace(CWD)
    assert snap is not None
    with pytest.raises(ReadOnlyRootError) as caught:
        store.commit(snap.key, [PutOp(record=rec("new"))], snap.revision)
    assert caught.value.reason == "read-only"
    with pytest.raises(ReadOnlyRootError):
        store.replace_global("# x\n", None)
    with pytest.raises(ReadOnlyRootError):
        store.files(RECEIPTS).write("r1", "x")
    f = tmp_path / "r.md"
    from core.records import render_record

    f.write_bytes(render_record(rec("new")))
    code, out = cli(ro_root, "put", "--cwd", CWD, "--file", str(f))
    assert code == 10 and out["error"]["code"] == "read_only"  # type: ignore[index]
    assert any("read-only" in p.reason for p in store.inspect.check())


def test_a_root_whose_locks_cannot_be_created_is_read_unlocked(tmp_path: Path) -> None:
    """Another user's root, simulated without root rights being needed: the lock folder can't be made."""
    root = tmp_path / "m"
    _populate(root)
    locks = root / ".manager" / "locks"
    for p in locks.iterdir():
        p.unlink()
    locks.rmdir()
    locks.write_text("not a folder")  # creating lock files now fails for everybody, root included
    store = FileStore(root)
    assert store.read_global().text.startswith("# Global")
    assert [i.display_name for i in store.list_workspaces()] == ["hostile"]
