"""core.recycle: where a deleted record would go back to, read through a real FileStore."""

from __future__ import annotations

from pathlib import Path

from core.models import DeleteOp, PutOp, Record
from core.recycle import read_recycle_bin, restore_entry, restore_target
from core.store.fs import FileStore


def test_restore_target_follows_the_workspace(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    cwd = tmp_path / "proj"
    cwd.mkdir()
    snap = store.create_workspace(str(cwd))
    rec = Record(name="fact", type="project", description="A fact", body="\nThe fact.\n")
    snap = store.commit(snap.key, [PutOp(record=rec)], snap.revision)
    snap = store.commit(snap.key, [DeleteOp(name="fact")], snap.revision)
    (entry,) = [e for e in read_recycle_bin(store).history if e.reason == "delete"]
    target = restore_target(store, entry)
    assert (target.state, target.revision, target.record_exists) == ("active", snap.revision, False)
    back = restore_entry(store, entry, target.revision, create=False)
    assert back.get("fact") is not None and restore_target(store, entry).record_exists
    store.recycle.archive(snap.key)
    assert restore_target(store, entry).state == "archived"
    assert [w.key for w in read_recycle_bin(store).workspaces] == [snap.key]
    store.recycle.purge(snap.key, "proj")
    assert restore_target(store, entry).state == "missing"  # purged: the workspace must be created again
