"""A sync SIGKILLed at every step: after the next open the whole root (every workspace, Global, the
archives) is exactly old or new, and the next sync converges (real child processes, real git, a
bare remote in a temp dir)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.models import DeleteOp, PutOp
from core.store.fs import FileStore
from core.sync import engine
from tests.core.sync.helpers import git_env, put, rec, texts

REPO = Path(__file__).resolve().parents[3]


def _state(store: FileStore) -> dict[str, dict[str, str]]:
    """The whole root as an agent and the Recycle Bin see it: every active workspace's records (one
    created empty for the transaction holds no memory yet), Global, and which workspaces are archived."""
    out = {i.key: t for i in store.list_workspaces() if (t := texts(store, i.key))}
    out["GLOBAL"] = {"text": store.read_global().text}
    out["ARCHIVED"] = {i.key: "" for i in store.list_workspaces(archived=True)}
    return out


def _prepare(base: Path, env: dict[str, str]) -> dict[str, object]:
    remote = base / "remote.git"
    subprocess.run(["git", "init", "--bare", "-q", str(remote)], env=env, check=True)
    a, b = FileStore(base / "a"), FileStore(base / "b")
    k1 = put(a, "/srv/one", rec("alpha"), rec("beta"), rec("gamma"))
    k2 = put(a, "/srv/two", rec("delta"))
    k4 = put(a, "/srv/four", rec("zeta"))
    a.replace_global("# Global\n\nbase\n", None)
    assert engine.run_sync(a, str(remote), env=env).status == "pushed"
    assert engine.run_sync(b, str(remote), env=env).ok
    # A: edits in two workspaces, a delete, Global, a new workspace. B: its own edit.
    a.commit(k1, [PutOp(record=rec("alpha", "new alpha")), DeleteOp(name="gamma")], None)
    a.commit(k2, [PutOp(record=rec("delta", "new delta"))], None)
    a.replace_global("# Global\n\nnew\n", None)
    put(a, "/srv/three", rec("epsilon"))
    a.recycle.archive(k4)  # archived there: archived here in the same transaction
    assert engine.run_sync(a, str(remote), env=env).status == "pushed"
    b.commit(k1, [PutOp(record=rec("beta", "b's beta"))], None)
    return {"old": _state(b)}


def test_a_sync_killed_at_every_step_is_old_or_new_and_converges(tmp_path: Path) -> None:
    env = git_env(tmp_path)
    base = tmp_path / "base"
    base.mkdir()
    old = _prepare(base, env)["old"]
    assert isinstance(old, dict)
    # The state a complete sync reaches, for comparison.
    done = tmp_path / "done"
    shutil.copytree(base, done, symlinks=True)
    assert engine.run_sync(FileStore(done / "b"), str(done / "remote.git"), env=env).status == "merged"
    new = _state(FileStore(done / "b"))
    assert new != old
    killed_at = []
    for n in range(1, 40):
        case = tmp_path / f"kill-{n}"
        shutil.copytree(base, case, symlinks=True)
        remote = str(case / "remote.git")
        # The saved remote names the base copy's path; each case syncs with its own copy.
        proc = subprocess.run(
            [sys.executable, "-m", "tests.core.sync.sync_child", str(case / "b"), remote],
            cwd=REPO, env={**env, engine.KILL_ENV: str(n)}, capture_output=True, check=False, timeout=120,
        )
        if proc.returncode == 0:
            assert json.loads(proc.stdout)["status"] == "merged"
            break
        assert proc.returncode == -9, proc.stderr.decode()
        killed_at.append(n)
        reopened = FileStore(case / "b")
        now = _state(reopened)
        # The WHOLE root is exactly its old or its new state: never one workspace merged and another not.
        assert now in (old, new), (n, {k for k in set(old) | set(now) if now.get(k) != old.get(k)})
        again = engine.run_sync(reopened, remote, env=env)
        assert again.ok, (n, again.message)
        assert _state(reopened) == new, n
        a = FileStore(case / "a")
        assert engine.run_sync(a, remote, env=env).ok
        assert _state(a) == new, n
        assert engine.run_sync(reopened, remote, env=env).status == "up-to-date"
    print("killed at steps", killed_at)
    assert len(killed_at) >= 6, killed_at  # local commit, remote, fetch, each scope, merge commit, push


@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_review_killed_midway_is_found_again(tmp_path: Path, n: int) -> None:
    env = git_env(tmp_path)
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--bare", "-q", str(remote)], env=env, check=True)
    a, b = FileStore(tmp_path / "a"), FileStore(tmp_path / "b")
    key = put(a, "/srv/one", rec("alpha", "base"))
    engine.run_sync(a, str(remote), env=env)
    engine.run_sync(b, str(remote), env=env)
    a.commit(key, [PutOp(record=rec("alpha", "a"))], None)
    b.commit(key, [PutOp(record=rec("alpha", "b"))], None)
    engine.run_sync(a, str(remote), env=env)
    proc = subprocess.run(
        [sys.executable, "-m", "tests.core.sync.sync_child", str(tmp_path / "b"), str(remote)],
        cwd=REPO, env={**env, engine.KILL_ENV: str(n)}, capture_output=True, check=False, timeout=120,
    )
    assert proc.returncode in (-9, 0)
    b = FileStore(tmp_path / "b")
    assert texts(b, key)["alpha"] == "\nb\n"
    got = engine.run_sync(b, str(remote), env=env)
    assert got.status == "review" and got.conflicts == [f"workspaces/{key}/alpha.md"]
