"""Issue 9, items 2, 3, 4 and 11: symlinks, over-long names, YAML alias bombs, non-UTF-8 folders."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_support import CWD, disk, rec

from core.cli.main import main
from core.errors import InvalidRecordError, StorageError, UsageError
from core.keys import workspace_key
from core.models import PutOp, Record
from core.records import render_record
from core.store import base
from core.store.fs import FileStore


def cli(root: Path, *args: str) -> tuple[int, dict[str, object]]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["--root", str(root), "--json", *args], stdout=out, stderr=err)
    return code, json.loads(out.getvalue())


# --- item 2: symlinks ------------------------------------------------------------------------------
def test_a_symlinked_workspace_folder_is_never_written_through(tmp_path: Path) -> None:
    root = tmp_path / "m"
    store = FileStore(root)
    store.create_workspace("/home/me/other")  # root and workspaces/ exist
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "scope.json").write_text('{"cwd": "/x"}')
    (elsewhere / "MEMORY.md").write_text("# theirs\n")
    before = disk(elsewhere)
    key = workspace_key(CWD)
    (root / "workspaces" / key).symlink_to(elsewhere)
    record = tmp_path / "r.md"
    record.write_bytes(render_record(rec("fact")))
    code, out = cli(root, "put", "--cwd", CWD, "--file", str(record))
    assert code != 0 and out["error"]["code"] == "storage"  # type: ignore[index]
    assert "symbolic link" in out["error"]["message"]  # type: ignore[index]
    assert disk(elsewhere) == before  # nothing written outside the root
    problems = [p for p in FileStore(root).inspect.check() if p.path == f"workspaces/{key}"]
    assert problems and "symbolic link" in problems[0].reason


def test_a_symlinked_memory_md_is_reported_and_never_replaced(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    d = tmp_path / "m" / "workspaces" / s.key
    outside = tmp_path / "outside.md"
    outside.write_text("# my own index\n")
    (d / "MEMORY.md").unlink()
    (d / "MEMORY.md").symlink_to(outside)
    s = store.commit(s.key, [PutOp(record=rec("fact"))], s.revision)
    assert (d / "MEMORY.md").is_symlink() and outside.read_text() == "# my own index\n"
    assert (d / "fact.md").exists()
    assert any(p.path.endswith("/MEMORY.md") and "symbolic link" in p.reason for p in store.inspect.check())


def test_a_symlinked_archived_folder_never_receives_a_workspace(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "m" / "archived").symlink_to(elsewhere)
    with pytest.raises(StorageError) as caught:
        store.recycle.archive(s.key)
    assert caught.value.reason == "not-a-folder"
    assert list(elsewhere.iterdir()) == [] and store.read_workspace(s.key)
    assert any(p.path == "archived" for p in store.inspect.check())


def test_a_symlinked_history_folder_is_never_written_through(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("fact"))], s.revision)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "m" / ".manager" / "history").symlink_to(elsewhere)
    with pytest.raises(StorageError):
        store.commit(s.key, [PutOp(record=rec("fact", "\nnew\n"))], s.revision)
    assert list(elsewhere.iterdir()) == []
    assert store.read_workspace(s.key).get("fact").record.body == "\nA fact.\n"  # type: ignore[union-attr]


# --- item 3: long names -------------------------------------------------------------------------
def test_an_over_long_name_is_refused_with_the_limit_and_the_root_keeps_working(tmp_path: Path) -> None:
    root = tmp_path / "m"
    long_name = "-".join(["abcdefghij"] * 20)[:219].rstrip("-")
    record = tmp_path / "long.md"
    record.write_bytes(render_record(rec(long_name)))
    for _ in range(2):  # the second put used to brick the root
        code, out = cli(root, "put", "--cwd", CWD, "--file", str(record))
        assert code == 6 and out["error"]["code"] == "invalid"  # type: ignore[index]
        assert f"limit is {base.MAX_NAME_BYTES} bytes" in out["error"]["message"]  # type: ignore[index]
    for args in (["status"], ["global", "show"], ["workspaces"]):
        assert cli(root, *args)[0] == 0
    assert not (root / ".manager" / "staging").exists() or not list((root / ".manager" / "staging").iterdir())


def test_a_longest_allowed_name_round_trips_through_history(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    name = ("a" * 9 + "-") * 12 + "a" * (base.MAX_NAME_BYTES - 120)
    assert len(name) == base.MAX_NAME_BYTES
    s = store.commit(s.key, [PutOp(record=rec(name))], s.revision)
    s = store.commit(s.key, [PutOp(record=rec(name, "\nv2\n"))], s.revision)
    (entry,) = store.history.entries(s.key, name)
    assert store.history.read(entry.id) == render_record(rec(name))


def test_a_hand_made_over_long_file_is_listed_invalid_and_reported(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    name = "b" * 200
    (tmp_path / "m" / "workspaces" / s.key / f"{name}.md").write_bytes(render_record(rec(name)))
    entry = store.read_workspace(s.key).get(name)
    assert entry is not None and not entry.is_valid
    assert any("limit is" in p.reason for p in store.inspect.check())


def test_a_storage_error_after_the_commit_point_is_rolled_back_and_stays_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only OSError: a StorageError while applying (a history copy on a full disk) rolls back,
    and reopening does not silently apply the "failed" change."""
    from core.store import journal

    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("fact"))], s.revision)
    before = disk(tmp_path / "m")
    real = journal._ensure_history_dir

    def full(*args: object) -> None:
        raise StorageError("No space left on device")

    monkeypatch.setattr(journal, "_ensure_history_dir", full)
    with pytest.raises(StorageError) as caught:
        store.commit(s.key, [PutOp(record=rec("fact", "\nnew\n"))], s.revision)
    assert caught.value.reason == "rolled-back"
    monkeypatch.setattr(journal, "_ensure_history_dir", real)
    assert disk(tmp_path / "m") == before
    again = FileStore(tmp_path / "m")
    assert disk(tmp_path / "m") == before and again.read_workspace(s.key).revision == s.revision


@pytest.mark.skipif(os.geteuid() != 0 or not sys.platform.startswith("linux"), reason="mounting a tmpfs needs root")
def test_a_full_disk_fails_cleanly_and_stays_failed(tmp_path: Path) -> None:
    """A real 512 KiB tmpfs filled up: the commit fails with a clear error, nothing changes, and after
    space is freed the failed change is not applied by the next open."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("this machine does not allow mounting a tmpfs")
    try:
        root = mnt / "m"
        store = FileStore(root)
        s = store.create_workspace(CWD)
        s = store.commit(s.key, [PutOp(record=rec("fact"))], s.revision)
        filler = mnt / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"x" * 4096)
        except OSError:
            pass
        finally:
            os.close(fd)
        before = disk(root)
        big = Record(name="big", description="big", type="project", body="\n" + "y" * 200_000 + "\n")
        with pytest.raises(StorageError) as err:
            store.commit(s.key, [PutOp(record=rec("fact", "\nnew\n")), PutOp(record=big)], s.revision)
        assert "space" in err.value.message.lower() or "nothing" in err.value.message.lower()
        assert disk(root) == before
        filler.unlink()
        again = FileStore(root)
        assert disk(root) == before and again.read_workspace(s.key).revision == s.revision
        assert again.commit(s.key, [PutOp(record=rec("fact", "\nnew\n"))], s.revision).get("fact")
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


# --- item 4: YAML alias bombs -------------------------------------------------------------------
BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n" + "".join(
    f"{chr(99 + i)}: &{chr(99 + i)} [{', '.join([f'*{chr(98 + i)}'] * 9)}]\n" for i in range(8)
)


def test_a_yaml_alias_bomb_is_refused_before_any_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    record = Record(name="bomb", description="d", type="project", body="\nx\n", extra_frontmatter=BOMB)
    locked: list[str] = []
    real_lock = store._lock
    monkeypatch.setattr(store, "_lock", lambda scope: locked.append(scope) or real_lock(scope))
    with pytest.raises(InvalidRecordError) as refused:
        store.commit(s.key, [PutOp(record=record)], s.revision)
    assert refused.value.reason == "yaml-aliases"
    assert locked == []


def test_a_bomb_file_on_disk_is_listed_invalid_without_expanding_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import yaml

    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    text = f"---\nname: bomb\ndescription: d\nmetadata:\n  type: project\n{BOMB}---\n\nbody\n"
    (tmp_path / "m" / "workspaces" / s.key / "bomb.md").write_text(text)
    with monkeypatch.context() as m:
        m.setattr(yaml, "load", lambda *a, **k: pytest.fail("the bomb was handed to the YAML loader"))
        entry = store.read_workspace(s.key).get("bomb")
    assert entry is not None and any("anchors or aliases" in r for r in entry.invalid_reasons)
    # Another writer of the same workspace is not held up.
    store.commit(s.key, [PutOp(record=rec("fine"))], store.read_workspace(s.key).revision)


def test_cli_put_of_a_bomb_file_is_refused_quickly(tmp_path: Path) -> None:
    f = tmp_path / "bomb.md"
    f.write_text(f"---\nname: bomb\ndescription: d\nmetadata:\n  type: project\n{BOMB}---\n\nbody\n")
    code, out = cli(tmp_path / "m", "put", "--cwd", CWD, "--file", str(f))
    assert code == 6 and "anchors or aliases" in json.dumps(out)


# --- item 11: a cwd that is not UTF-8 -----------------------------------------------------------
def test_a_cwd_that_is_not_utf8_is_a_usage_error(tmp_path: Path) -> None:
    bad = os.fsdecode(b"/home/me/caf\xe9")
    with pytest.raises(UsageError) as caught:
        workspace_key(bad)
    assert caught.value.reason == "not-utf8"
    record = tmp_path / "r.md"
    record.write_bytes(render_record(rec("fact")))
    code, out = cli(tmp_path / "m", "put", "--cwd", bad, "--file", str(record))
    assert code == 2 and out["error"]["code"] == "usage"  # type: ignore[index]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    proc = subprocess.run(
        [sys.executable, "-m", "core.cli.main", "--root", str(tmp_path / "m"), "show", "--cwd", b"/tmp/caf\xe9"],  # type: ignore[list-item]
        capture_output=True,
        env=env,
    )
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr and b"UTF-8" in proc.stderr
