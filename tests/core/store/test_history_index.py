"""Pruning after a commit uses the history index (core/store/history_index.py): it keeps the limits
exactly, notices history files added or removed by hand, and does not list a scope's whole history
on every commit."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from core.models import PutOp, Record
from core.store import fs as fs_mod
from core.store.base import HISTORY_MAX_VERSIONS
from core.store.fs import FileStore

CWD = "/home/u/history-index"


def rec(name: str, body: str) -> Record:
    return Record(name=name, description=f"about {name}", type="project", body=body)


def versions(root: Path, key: str, name: str) -> list[str]:
    return sorted(p.name for p in (root / ".manager" / "history" / key).glob(f"*-{name}.hist"))


def test_limits_hold_and_hand_changes_are_noticed(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    for i in range(HISTORY_MAX_VERSIONS + 6):
        ops = [PutOp(record=rec("fact", f"\nv{i}\n")), PutOp(record=rec("other", f"\n{i}\n"))]
        s = store.commit(s.key, ops, s.revision)
    assert len(versions(root, s.key, "fact")) == HISTORY_MAX_VERSIONS
    assert len(versions(root, s.key, "other")) == HISTORY_MAX_VERSIONS
    folder = root / ".manager" / "history" / s.key
    # By hand: an old version copied in (older than every kept one) and the newest one deleted.
    kept = versions(root, s.key, "fact")
    oldest = folder / kept[0]
    copied = folder / ("20000101T000000000000Z" + kept[0][len("20000101T000000000000Z") :])
    shutil.copyfile(oldest, copied)
    os.unlink(folder / kept[-1])
    s = store.commit(s.key, [PutOp(record=rec("fact", "\nafter the hand edits\n"))], s.revision)
    now = versions(root, s.key, "fact")
    assert len(now) == HISTORY_MAX_VERSIONS
    assert copied.name not in now  # the hand-copied (oldest) one is what pruning dropped
    assert kept[-1] not in now  # and the deleted one was not counted


def test_a_commit_does_not_list_the_whole_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "memory"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec(f"r-{i}", "\nv0\n")) for i in range(50)], s.revision)
    s = store.commit(s.key, [PutOp(record=rec(f"r-{i}", "\nv1\n")) for i in range(50)], s.revision)
    history = str(root / ".manager" / "history" / s.key)
    listed: list[str] = []
    scandir = os.scandir

    def counting(path: object = ".") -> object:
        if str(path) == history:
            listed.append(history)
        return scandir(path)  # type: ignore[call-overload]

    monkeypatch.setattr(fs_mod.os, "scandir", counting)
    for i in range(10):
        s = store.commit(s.key, [PutOp(record=rec(f"r-{i}", "\nv2\n"))], s.revision)
    assert len(listed) <= 1  # at most once (this process's first prune), not once per commit
    assert all(len(versions(root, s.key, f"r-{i}")) == 2 for i in range(10))
