"""The scope a commit returns (derived from what it wrote, ``core/store/scope_files.py``) is exactly
what a fresh process reading the disk sees, and re-reads never hide a change behind the scope cache."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from core.errors import ConflictError, InvalidRecordError
from core.models import DeleteOp, Op, PutOp, Record, WorkspaceSnapshot
from core.records import render_index
from core.store.caches import ScopeCache
from core.store.fs import FileStore

CWD = "/home/u/scope-files"


def rec(name: str, body: str = "\nbody\n", description: str | None = None) -> Record:
    return Record(name=name, description=description or f"about {name}", type="project", body=body)


def fresh(root: Path, key: str) -> WorkspaceSnapshot:
    """The workspace as a new process would read it: a store with caches of its own (none shared)."""
    return FileStore(root).read_workspace(key)


def same(a: WorkspaceSnapshot, b: WorkspaceSnapshot) -> None:
    assert a.revision == b.revision
    assert [e.model_dump() for e in a.entries] == [e.model_dump() for e in b.entries]
    assert a.index_text == b.index_text
    assert a.info == b.info


def test_every_commit_returns_what_a_fresh_read_sees(tmp_path: Path) -> None:
    """200 random batches (creates, overwrites, deletes) between direct writes of other programs:
    files in another letter case, invalid files, in-place edits, a hand-edited MEMORY.md."""
    rng = random.Random(15)
    root = tmp_path / "memory"
    store = FileStore(root)
    snap = store.create_workspace(CWD)
    folder = root / "workspaces" / snap.key
    names = [f"note-{i}" for i in range(30)]
    for step in range(200):
        if step % 7 == 3:  # another program writes without our lock
            what = rng.choice(["case", "invalid", "edit", "index", "remove"])
            if what == "case":
                (folder / f"{rng.choice(names).capitalize()}.md").write_bytes(b"---\nname: x\n---\n")
            elif what == "invalid":
                (folder / f"{rng.choice(names)}.md").write_bytes(b"not a record\n")
            elif what == "edit":
                present = [e.file_name for e in snap.entries]
                if present:
                    with open(folder / rng.choice(present), "ab") as f:
                        f.write(b"\nappended by an agent\n")
            elif what == "index":
                (folder / "MEMORY.md").write_bytes(b"# my own index\n")
            else:
                for p in folder.glob("[A-Z]*.md"):
                    p.unlink()
            snap = store.read_workspace(snap.key)
            same(snap, fresh(root, snap.key))
        ops: list[Op] = []
        present = {e.name for e in snap.entries}
        for name in rng.sample(names, rng.randint(1, 4)):
            if name in present and rng.random() < 0.3:
                ops.append(DeleteOp(name=name))
            else:
                ops.append(PutOp(record=rec(name, f"\nstep {step} {rng.random()}\n", f"d{rng.randint(0, 3)}")))
        try:
            snap = store.commit(snap.key, ops, snap.revision)
        except InvalidRecordError:  # a name taken in another case by the direct writer: refused
            snap = store.read_workspace(snap.key)
            continue
        same(snap, fresh(root, snap.key))
        if snap.index_text != "# my own index\n":  # regenerated (a no-op batch leaves a hand edit)
            assert snap.index_text == render_index(snap.records()).decode()
    assert len({e.name for e in snap.entries}) > 5


def test_a_change_made_after_a_commit_is_seen_by_the_next_one(tmp_path: Path) -> None:
    """The scope cache never stands in for the disk: an in-place edit of another record (same size,
    so only its stat tells) after a commit makes the next commit on the old revision a conflict."""
    root = tmp_path / "memory"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("a")), PutOp(record=rec("b", "\nbbbb\n"))], s.revision)
    s = store.commit(s.key, [PutOp(record=rec("a", "\nagain\n"))], s.revision)
    b = root / "workspaces" / s.key / "b.md"
    data = b.read_bytes()
    with open(b, "r+b") as f:  # same size, same inode: only mtime/ctime change
        f.write(data.replace(b"bbbb", b"BBBB"))
    with pytest.raises(ConflictError):
        store.commit(s.key, [PutOp(record=rec("a", "\nthird\n"))], s.revision)
    now = store.read_workspace(s.key)
    assert now.get("b") is not None and now.get("b").revision != s.get("b").revision  # type: ignore[union-attr]
    same(now, fresh(root, s.key))


def test_memory_md_written_by_us_is_not_history_and_a_hand_edit_is(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    for i in range(3):
        s = store.commit(s.key, [PutOp(record=rec(f"n-{i}"))], s.revision)
    assert store.history.entries(s.key, "MEMORY") == []
    index = root / "workspaces" / s.key / "MEMORY.md"
    index.write_bytes(index.read_bytes() + b"my note\n")
    s = store.commit(s.key, [PutOp(record=rec("n-9"))], store.read_workspace(s.key).revision)
    (entry,) = store.history.entries(s.key, "MEMORY")
    assert store.history.read(entry.id).endswith(b"my note\n")
    assert index.read_bytes() == render_index(s.records())


def test_the_scope_cache_is_bounded(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    for i in range(ScopeCache.MAX + 5):
        s = store.create_workspace(f"/home/u/project-{i}")
        store.commit(s.key, [PutOp(record=rec("a"))], s.revision)
    assert len(store.caches.scopes.folders()) <= ScopeCache.MAX
    assert all(os.path.isdir(p) for p in store.caches.scopes.folders())


def test_an_entry_cached_in_the_racy_window_is_checked_against_the_bytes(tmp_path: Path) -> None:
    """A file written within the racy window can be rewritten in the same timestamp tick with its
    stat unchanged. The entry cached for it then must not be trusted on the stat: simulate exactly
    that stat-preserving rewrite and check the next read sees the new bytes."""
    root = tmp_path / "memory"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("a", "\nfirst version\n"))], s.revision)
    folder = str(root / "workspaces" / s.key)
    path = Path(folder) / "a.md"
    old_entry = s.get("a")
    path.write_bytes(path.read_bytes().replace(b"first", b"FIRST"))  # same size, new bytes
    st = os.lstat(path)
    sig = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
    store.caches.entries[folder]["a.md"] = (sig, old_entry, True)  # as if the stat had not changed
    now = store.read_workspace(s.key)
    assert now.get("a").record.body == "\nFIRST version\n"  # type: ignore[union-attr]
    assert now.revision != s.revision
    same(now, fresh(root, s.key))
