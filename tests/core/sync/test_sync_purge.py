"""Delete forever through sync: a purged workspace leaves the sync repository, the remote and the
other machine's sync repository, and no later sync brings it back (two roots, a bare remote, real git)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from core.models import PutOp
from core.recycle import purge_workspace
from core.store.fs import FileStore
from core.sync import engine
from core.sync.models import SyncResult
from tests.core.sync.helpers import git_env, put, rec, texts

MARKER = "PURGE-MARKER-7f3a9c"
SECRET_PROJ = "/srv/projects/hush"
PROJ = "/srv/projects/shop"


class Machines:
    def __init__(self, tmp: Path) -> None:
        self.env = git_env(tmp)
        self.remote = tmp / "remote.git"
        subprocess.run(["git", "init", "--bare", "-q", str(self.remote)], env=self.env, check=True)
        self.a = FileStore(tmp / "a" / "memory")
        self.b = FileStore(tmp / "b" / "memory")

    def sync(self, store: FileStore) -> SyncResult:
        res = engine.run_sync(store, str(self.remote), env=self.env)
        assert res.ok, res.message
        return res

    def git(self, git_dir: Path, *args: str) -> bytes:
        return subprocess.run(
            ["git", f"--git-dir={git_dir}", *args], env=self.env, capture_output=True, check=True
        ).stdout


def repo(store: FileStore) -> Path:
    assert store.root is not None
    return store.root / ".manager" / "sync" / "repo.git"


def traces(m: Machines, git_dir: Path, key: str) -> list[str]:
    """Where the purged workspace still shows in ``git_dir``: commits touching its paths, and any
    object (reachable or not, loose or packed) holding a byte of its records."""
    found = []
    log = m.git(git_dir, "log", "--all", "--format=%H", "--", f"workspaces/{key}", f"archived/{key}")
    if log.strip():
        found.append(f"commits touch it: {log.decode().split()}")
    objects = m.git(git_dir, "cat-file", "--batch-all-objects", "--batch")
    if MARKER.encode() in objects:
        found.append("an object holds the marker")
    if key.encode() in objects:
        found.append("an object names the key")
    return found


def archived_keys(store: FileStore) -> set[str]:
    return {i.key for i in store.list_workspaces(archived=True, counts=False)}


def active_keys(store: FileStore) -> set[str]:
    return {i.key for i in store.list_workspaces(counts=False)}


@pytest.fixture
def m(tmp_path: Path) -> Machines:
    return Machines(tmp_path)


def _synced_pair(m: Machines) -> tuple[str, str]:
    """A workspace with two synced versions of a marked record on both machines, and one that stays."""
    hush = put(m.a, SECRET_PROJ, rec("alpha", f"{MARKER} one"), rec("beta", f"{MARKER} two"))
    keep = put(m.a, PROJ, rec("gamma", "stays"))
    m.sync(m.a)
    m.sync(m.b)
    m.a.commit(hush, [PutOp(record=rec("alpha", f"{MARKER} three"))], m.a.read_workspace(hush).revision)
    m.sync(m.a)
    m.sync(m.b)
    assert texts(m.b, hush)["alpha"] == f"\n{MARKER} three\n"
    return hush, keep


def test_purge_leaves_no_byte_in_either_sync_repository_or_the_remote(m: Machines) -> None:
    hush, keep = _synced_pair(m)
    assert traces(m, m.remote, hush)  # the test sees what it looks for
    m.a.recycle.archive(hush)
    sweep = purge_workspace(m.a, hush, "hush")
    assert sweep.sync_history_rewritten
    assert traces(m, repo(m.a), hush) == []  # rewritten and pruned at once, before any sync

    res = m.sync(m.a)  # the forced push, with a lease on what A merged last
    assert res.rewritten
    assert traces(m, m.remote, hush) == []
    assert traces(m, repo(m.a), hush) == []

    res_b = m.sync(m.b)  # B follows the tombstone: its own history is rewritten, its copy archived
    assert res_b.purged == [hush]
    assert traces(m, repo(m.b), hush) == []
    assert hush in archived_keys(m.b) and hush not in active_keys(m.b)
    assert texts(m.b, keep) == {"gamma": "\nstays\n"}

    # Nothing resurrects it: more syncs both ways, with edits elsewhere.
    m.b.commit(keep, [PutOp(record=rec("gamma", "edited on b"))], m.b.read_workspace(keep).revision)
    for store in (m.b, m.a, m.b, m.a):
        m.sync(store)
    for git_dir in (m.remote, repo(m.a), repo(m.b)):
        assert traces(m, git_dir, hush) == []
    assert hush not in active_keys(m.a) | archived_keys(m.a)
    assert texts(m.a, keep) == {"gamma": "\nedited on b\n"}
    assert m.git(m.remote, "rev-parse", "main") == m.git(repo(m.a), "rev-parse", "refs/heads/local")


def test_a_push_from_the_old_history_before_the_forced_push_is_merged_not_lost(m: Machines) -> None:
    hush, keep = _synced_pair(m)
    m.a.recycle.archive(hush)
    purge_workspace(m.a, hush, "hush")
    # B (not told yet) edits and pushes on top of the old history, which still holds the workspace.
    m.b.commit(keep, [PutOp(record=rec("delta", "new on b"))], m.b.read_workspace(keep).revision)
    m.b.commit(hush, [PutOp(record=rec("alpha", f"{MARKER} four"))], m.b.read_workspace(hush).revision)
    m.sync(m.b)
    res = m.sync(m.a)  # fetches B's push, rewrites it the same way, merges, replaces the branch
    assert res.rewritten
    assert texts(m.a, keep)["delta"] == "\nnew on b\n"
    assert hush not in active_keys(m.a)
    assert traces(m, m.remote, hush) == []
    res_b = m.sync(m.b)
    assert res_b.purged == [hush]
    m.sync(m.a)
    for git_dir in (m.remote, repo(m.a), repo(m.b)):
        assert traces(m, git_dir, hush) == []


def test_a_newcomer_and_a_recreated_folder_are_not_affected_by_old_tombstones(m: Machines, tmp_path: Path) -> None:
    hush, _keep = _synced_pair(m)
    m.a.recycle.archive(hush)
    purge_workspace(m.a, hush, "hush")
    m.sync(m.a)
    m.sync(m.b)
    # The agent works in that folder again on A: a new workspace with the same key syncs normally.
    put(m.a, SECRET_PROJ, rec("fresh", "a new start"))
    m.sync(m.a)
    c = FileStore(tmp_path / "c" / "memory")
    m.sync(c)
    assert texts(c, hush) == {"fresh": "\na new start\n"}
    # B keeps its archived copy out of sync; restoring the purged copy is the user's call there.
    m.sync(m.b)
    assert texts(m.a, hush) == {"fresh": "\na new start\n"}


def test_a_purge_killed_before_its_rewrite_is_finished_by_the_next_sync(m: Machines) -> None:
    from core.sync import purge

    hush, _keep = _synced_pair(m)
    m.a.recycle.archive(hush)
    m.a.recycle.purge(hush, "hush")  # the store's purge went through; the process died before the sync hook
    assert m.a.root is not None
    st = purge.load_state(m.a.root)
    # What purge_synced writes first (before rewriting): the key pending, its tombstone, the lease.
    lease = m.git(repo(m.a), "rev-parse", "refs/remotes/sync/main").decode().strip()
    pending = {"pending": [hush], "seen": [purge.tombstone(hush)], "lease": lease}
    purge.save_state(m.a.root, st.model_copy(update=pending))
    assert traces(m, repo(m.a), hush)  # still there
    res = m.sync(m.a)
    assert res.rewritten
    for git_dir in (repo(m.a), m.remote):
        assert traces(m, git_dir, hush) == []
    assert m.sync(m.b).purged == [hush]
    assert traces(m, repo(m.b), hush) == []


def test_a_sync_killed_while_following_a_tombstone_finishes_it_next_time(m: Machines) -> None:
    from core.sync import purge

    hush, _keep = _synced_pair(m)
    m.a.recycle.archive(hush)
    purge_workspace(m.a, hush, "hush")
    m.sync(m.a)
    # B fetched the tombstone and saved what to do, then died before archiving and rewriting.
    assert m.b.root is not None
    m.git(repo(m.b), "fetch", "-q", str(m.remote), "+refs/heads/main:refs/remotes/sync/main")
    st = purge.load_state(m.b.root)
    todo = {"seen": [purge.tombstone(hush)], "following": [hush], "local_only": [hush]}
    purge.save_state(m.b.root, st.model_copy(update=todo))
    assert hush in active_keys(m.b)
    m.sync(m.b)  # finishes it first: archived, out of B's branch, never sent back
    assert hush in archived_keys(m.b)
    m.sync(m.a)
    for git_dir in (m.remote, repo(m.a), repo(m.b)):
        assert traces(m, git_dir, hush) == []


def test_a_workspace_with_a_chinese_folder_name_is_purged_from_history_too(m: Machines) -> None:
    """git prints such paths C-quoted (octal escapes): the rewrite must still recognise them."""
    hush = put(m.a, "/srv/项目 笔记", rec("alpha", f"{MARKER} 中文"))
    put(m.a, "/srv/项目-other", rec("beta", "stays"))
    m.sync(m.a)
    m.sync(m.b)
    m.a.recycle.archive(hush)
    purge_workspace(m.a, hush, "项目 笔记")
    res = m.sync(m.a)
    assert res.rewritten and res.sent == []
    assert m.sync(m.b).purged == [hush]
    for git_dir in (m.remote, repo(m.a), repo(m.b)):
        assert traces(m, git_dir, hush) == []
