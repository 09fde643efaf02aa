"""The persisted workspace summary cache (core/store/summaries.py): a cold list_workspaces() that
trusts the cache must give exactly what a full parse gives, whatever happened on disk in between."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import core.fingerprint as fingerprint_mod
from core.models import PutOp, Record, WorkspaceInfo
from core.store.base import StoreCore
from core.store.fs import FileStore
from core.store.summaries import CACHE_DIR, CACHE_FILE

REPO = Path(__file__).resolve().parents[3]


def rec(name: str, body: str = "\nA fact.\n") -> Record:
    return Record(name=name, description=f"About {name}", type="project", body=body)


@pytest.fixture(autouse=True)
def no_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by the test are milliseconds old; let the cache trust them (tests that need the
    racy rule put timestamps in the future instead)."""
    monkeypatch.setattr(fingerprint_mod, "RACY_WINDOW_NS", 0)


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Keys of the scopes FileStore parsed (``_load_scope`` calls)."""
    seen: list[str] = []
    orig = FileStore._load_scope

    def counted(self: FileStore, key: str, archived: bool) -> object:
        seen.append(key)
        return orig(self, key, archived)

    monkeypatch.setattr(FileStore, "_load_scope", counted)
    return seen


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "memory"
    store = FileStore(root)
    for i in range(4):
        snap = store.create_workspace(f"/home/me/proj-{i}")
        store.commit(snap.key, [PutOp(record=rec(f"fact-{j}")) for j in range(3)], snap.revision)
    yield root


def full_parse(root: Path, archived: bool = False) -> list[WorkspaceInfo]:
    """The truth: the uncached listing, by a store with a parse cache of its own (empty)."""
    return StoreCore.list_workspaces(FileStore(root), archived=archived)


def cached(root: Path, archived: bool = False) -> list[WorkspaceInfo]:
    # A store with caches of its own: a hit must come from the persisted cache, not this process's memory.
    return FileStore(root).list_workspaces(archived=archived)


def key_of(root: Path, i: int) -> str:
    return next(i_.key for i_ in full_parse(root) if i_.cwd == f"/home/me/proj-{i}")


def scope_dir(root: Path, key: str, archived: bool = False) -> Path:
    return root / ("archived" if archived else "workspaces") / key


def cache_path(root: Path) -> Path:
    return root / ".manager" / CACHE_DIR / CACHE_FILE


def warm(root: Path) -> None:
    cached(root)
    cached(root, archived=True)
    assert cache_path(root).is_file()


def test_unchanged_root_parses_nothing(root: Path, loads: list[str]) -> None:
    first = cached(root)
    assert len(loads) == 4
    loads.clear()
    again = cached(root)
    assert loads == []
    assert again == first == full_parse(root)


def test_same_size_edit_is_seen(root: Path, loads: list[str]) -> None:
    warm(root)
    key = key_of(root, 1)
    path = scope_dir(root, key) / "fact-0.md"
    st = path.stat()
    data = path.read_bytes()
    assert b"description: About fact-0" in data
    path.write_bytes(data.replace(b"description: About fact-0", b"descriptio: About fact-0!"))
    assert path.stat().st_size == st.st_size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 1_000_000_000))  # in the past: not racy
    loads.clear()
    got = cached(root)
    assert loads == [key]
    assert got == full_parse(root)
    info = next(i for i in got if i.key == key)
    assert (info.record_count, info.invalid_count) == (2, 1)


def test_same_size_edit_keeping_mtime_is_seen_through_ctime(root: Path, loads: list[str]) -> None:
    warm(root)
    key = key_of(root, 2)
    path = scope_dir(root, key) / "fact-1.md"
    st = path.stat()
    path.write_bytes(b"x" * st.st_size)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime put back; ctime moves anyway
    got = cached(root)
    assert got == full_parse(root)
    assert next(i for i in got if i.key == key).invalid_count == 1


def test_file_made_invalid_new_and_deleted_files(root: Path, loads: list[str]) -> None:
    warm(root)
    k0, k1, k3 = key_of(root, 0), key_of(root, 1), key_of(root, 3)
    (scope_dir(root, k0) / "fact-2.md").write_bytes(b"---\nname: [broken\n---\nbody\n")
    (scope_dir(root, k1) / "brand-new.md").write_bytes((scope_dir(root, k1) / "fact-0.md").read_bytes())
    (scope_dir(root, k3) / "fact-0.md").unlink()
    loads.clear()
    got = cached(root)
    assert sorted(loads) == sorted([k0, k1, k3])
    assert got == full_parse(root)
    counts = {i.key: (i.record_count, i.invalid_count) for i in got}
    assert counts[k0] == (2, 1)
    assert counts[k1] == (3, 1)  # brand-new.md holds another record's name: invalid
    assert counts[k3] == (2, 0)


def test_index_and_scope_json_changes_are_seen(root: Path, loads: list[str]) -> None:
    warm(root)
    k0, k1 = key_of(root, 0), key_of(root, 1)
    with open(scope_dir(root, k0) / "MEMORY.md", "ab") as f:
        f.write(b"\nhand edit\n")
    (scope_dir(root, k1) / "scope.json").write_text('{"cwd": "/elsewhere"}', "utf-8")
    got = cached(root)
    assert got == full_parse(root)
    assert next(i for i in got if i.key == k1).scope_problem


def test_store_commits_are_seen(root: Path, loads: list[str]) -> None:
    warm(root)
    store = FileStore(root)
    k2 = key_of(root, 2)
    snap = store.read_workspace(k2)
    store.commit(k2, [PutOp(record=rec("fact-9", "\nLonger body " * 30))], snap.revision)
    assert cached(root) == full_parse(root)


def test_new_deleted_archived_restored_scopes(root: Path, loads: list[str]) -> None:
    warm(root)
    store = FileStore(root)
    snap = store.create_workspace("/home/me/new-one")
    store.commit(snap.key, [PutOp(record=rec("only"))], snap.revision)
    assert cached(root) == full_parse(root)
    assert cached(root, archived=True) == full_parse(root, archived=True)

    k1 = key_of(root, 1)
    store.recycle.archive(k1)
    assert cached(root) == full_parse(root)
    assert cached(root, archived=True) == full_parse(root, archived=True)
    assert [i.key for i in cached(root, archived=True)] == [k1]

    loads.clear()
    assert cached(root, archived=True) == full_parse(root, archived=True)
    assert loads.count(k1) == 1  # only the full parse; the cached listing trusted the cache

    store.recycle.restore(k1)
    assert cached(root) == full_parse(root)
    assert cached(root, archived=True) == []

    shutil.rmtree(scope_dir(root, key_of(root, 3)))  # deleted by hand
    got = cached(root)
    assert got == full_parse(root)
    assert len(got) == 4
    store.recycle.archive(k1)
    store.recycle.purge(k1, "proj-1")
    assert cached(root) == full_parse(root)
    assert cached(root, archived=True) == full_parse(root, archived=True) == []
    assert FileStore(root).status() == FileStore(root).status()


def test_scope_replaced_by_symlink_is_not_trusted(root: Path, tmp_path: Path, loads: list[str]) -> None:
    warm(root)
    k0 = key_of(root, 0)
    elsewhere = tmp_path / "elsewhere"
    os.rename(scope_dir(root, k0), elsewhere)  # same files, same inodes and times
    os.symlink(elsewhere, scope_dir(root, k0))
    got = cached(root)
    assert got == full_parse(root)
    assert k0 not in {i.key for i in got}


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"{not json",
        b"\xff\xfe garbage",
        b"[]",
        b'{"format": "dsh-memory/workspace-summaries", "version": 1}',
        b'{"format": "dsh-memory/workspace-summaries", "version": 99, "active": {}, "archived": {}}',
    ],
)
def test_damaged_cache_is_ignored_and_rebuilt(root: Path, loads: list[str], damage: bytes) -> None:
    warm(root)
    cache_path(root).write_bytes(damage)
    loads.clear()
    assert cached(root) == full_parse(root)
    assert len([k for k in loads]) == 8  # 4 rebuilt by the cached listing, 4 by the full parse
    loads.clear()
    assert cached(root) == full_parse(root)
    assert len(loads) == 4  # only the full parse: the cache was rebuilt


def test_cache_with_wrong_numbers_but_valid_shape_for_another_root(root: Path, tmp_path: Path) -> None:
    warm(root)
    doc = json.loads(cache_path(root).read_text("utf-8"))
    for summary in doc["active"].values():
        summary[1] += 100  # numbers that would be visibly wrong if trusted
    doc["root"] = str(tmp_path / "some-other-root")
    cache_path(root).write_text(json.dumps(doc), "utf-8")
    assert cached(root) == full_parse(root)


def test_cache_copied_from_another_root(root: Path, tmp_path: Path, loads: list[str]) -> None:
    other = tmp_path / "other"
    store = FileStore(other)
    for i in range(4):  # the same cwds: the same keys, different records
        snap = store.create_workspace(f"/home/me/proj-{i}")
        store.commit(snap.key, [PutOp(record=rec(f"other-{j}")) for j in range(7)], snap.revision)
    warm(other)
    warm(root)
    shutil.copyfile(cache_path(other), cache_path(root))
    loads.clear()
    got = cached(root)
    assert len(loads) == 4
    assert got == full_parse(root)
    assert {i.record_count for i in got} == {3}


def test_racy_files_are_not_trusted(root: Path, loads: list[str]) -> None:
    k0 = key_of(root, 0)
    future = time.time_ns() + 3_600 * 10**9  # a file stamped "now" (or later) is racy, however slow we are
    path = scope_dir(root, k0) / "fact-0.md"
    os.utime(path, ns=(future, future))
    warm(root)
    doc = json.loads(cache_path(root).read_text("utf-8"))
    assert k0 not in doc["active"]
    loads.clear()
    assert cached(root) == full_parse(root)
    assert loads.count(k0) == 2  # parsed by both listings
    assert len(loads) == 5  # the other scopes came from the cache


def test_unwritable_cache_location_still_lists(root: Path) -> None:
    (root / ".manager" / CACHE_DIR).mkdir(parents=True, exist_ok=True)
    shutil.rmtree(root / ".manager" / CACHE_DIR)
    (root / ".manager" / CACHE_DIR).write_bytes(b"a file where the cache folder belongs")
    assert cached(root) == full_parse(root)


def test_listing_a_missing_root_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nothing-here"
    assert FileStore(missing).list_workspaces() == []
    assert not missing.exists()


CHILD = """
import json, sys
import core.fingerprint as fingerprint_mod
from core.store.fs import FileStore
from core.store.fs_read import ScopeReader
fingerprint_mod.RACY_WINDOW_NS = 0
parsed = []
orig_load, orig_entry = FileStore._load_scope, ScopeReader.entry
def load(self, key, archived):
    parsed.append(key)
    return orig_load(self, key, archived)
def entry(self, *a):
    parsed.append(a[0].name)
    return orig_entry(self, *a)
FileStore._load_scope, ScopeReader.entry = load, entry
store = FileStore(sys.argv[1])
infos = store.list_workspaces()
status = store.status()
print(json.dumps({"parsed": parsed, "infos": [i.model_dump(mode="json") for i in infos],
                  "total": status.total_bytes}))
"""


def run_child(root: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(root)], capture_output=True, text=True, check=True, env=env, cwd=REPO
    )
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_fresh_process_parses_nothing_when_nothing_changed(root: Path) -> None:
    first = run_child(root)
    assert len(first["parsed"]) > 0  # type: ignore[arg-type]
    second = run_child(root)
    assert second["parsed"] == []
    truth = [i.model_dump(mode="json") for i in full_parse(root)]
    assert second["infos"] == first["infos"] == truth
    assert second["total"] == FileStore(root).status().total_bytes


def test_fifo_scope_json_is_never_opened(root: Path) -> None:
    warm(root)
    k0 = key_of(root, 0)
    path = scope_dir(root, k0) / "scope.json"
    path.unlink()
    os.mkfifo(path)
    warm(root)  # builds a summary for the scope with a FIFO for scope.json
    got = cached(root)  # trusts it: must not block on the FIFO
    assert got == full_parse(root)
    assert next(i for i in got if i.key == k0).scope_problem


LISTER = """
import sys
from core.store.fs import FileStore
for _ in range(int(sys.argv[2])):
    store = FileStore(sys.argv[1])
    store.list_workspaces()
    store.list_workspaces(archived=True)
"""


def test_concurrent_listers_and_writer_never_corrupt_the_cache(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fingerprint_mod, "RACY_WINDOW_NS", 100_000_000)  # the real rule, here and in the children
    time.sleep(0.15)  # setup, not an assertion: let the fixture's files age past the racy window
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    children = [
        subprocess.Popen([sys.executable, "-c", LISTER, str(root), "25"], env=env, cwd=REPO) for _ in range(2)
    ]
    store = FileStore(root)
    k0 = key_of(root, 0)
    for i in range(15):
        snap = store.read_workspace(k0)
        store.commit(k0, [PutOp(record=rec(f"added-{i}", "\nbody\n" * (i + 1)))], snap.revision)
        if i == 7:
            store.recycle.archive(key_of(root, 2))
    for child in children:
        assert child.wait(timeout=120) == 0
    doc = json.loads(cache_path(root).read_text("utf-8"))  # whole, parseable: never torn
    assert doc["format"] == "dsh-memory/workspace-summaries"
    time.sleep(0.15)  # setup again: age the last commit so the cache may hold it
    assert cached(root) == full_parse(root)
    assert cached(root) == full_parse(root)  # now from the cache
    assert cached(root, archived=True) == full_parse(root, archived=True)
    assert not list((root / ".manager" / CACHE_DIR).glob(".dshtmp-*"))


def test_quick_listing_reads_no_record_and_claims_no_count(root: Path, loads: list[str]) -> None:
    """list_workspaces(counts=False) (the window's first paint): every scope, named and in order,
    with no count claimed, not even one the cache holds for an unchanged scope; nothing parsed."""
    warm(root)
    counted = cached(root)
    loads.clear()
    quick = FileStore(root).list_workspaces(counts=False)
    assert loads == []
    assert [i.key for i in quick] == [i.key for i in counted]
    assert all(not i.counted and (i.record_count, i.invalid_count, i.size_bytes) == (0, 0, 0) for i in quick)
    unknown = {"record_count": 0, "invalid_count": 0, "size_bytes": 0, "counted": False}
    assert [i.model_copy(update=unknown) for i in counted] == quick
    assert all(i.counted and i.record_count == 3 for i in counted)


def test_quick_listing_skips_a_symlinked_scope_and_lists_archived(root: Path, tmp_path: Path) -> None:
    store = FileStore(root)
    key = key_of(root, 0)
    snap = store.read_workspace(key)
    store.recycle.archive(key, snap.revision)
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(scope_dir(root, key_of(root, 1)), elsewhere)
    os.symlink(elsewhere, scope_dir(root, "a" * 8 + "-link"))
    quick_keys = [i.key for i in store.list_workspaces(counts=False)]
    assert quick_keys == [i.key for i in full_parse(root)]
    archived = store.list_workspaces(archived=True, counts=False)
    assert [(i.key, i.archived_at) for i in archived] == [(i.key, i.archived_at) for i in full_parse(root, True)]
