"""FileStore specifics: bytes and mtimes on disk, recovery from interrupted transactions, threads."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from core.errors import ConflictError, InvalidRecordError
from core.models import DeleteOp, PutOp, Record
from core.records import render_record
from core.store import journal, journal_recovery
from core.store.fs import FileStore

CWD = "/home/me/Proj Alpha"


def rec(name: str, body: str = "\nfact\n") -> Record:
    return Record(name=name, description=f"About {name}", type="project", body=body)


def snapshot_disk(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file() and ".manager" not in p.relative_to(root).parts
    }


class Interrupt(BaseException):
    """Stands in for kill -9: not an Exception, so no cleanup code handles it."""


def test_reading_a_missing_root_creates_nothing(tmp_path: Path) -> None:
    root = tmp_path / "nothing-here"
    store = FileStore(root)
    assert store.list_workspaces() == []
    assert store.read_global().exists is False
    assert store.inspect.check() == []
    assert store.status().workspace_count == 0
    assert not root.exists()


def test_layout_on_disk(fs_store: FileStore) -> None:
    s = fs_store.create_workspace(CWD)
    s = fs_store.commit(s.key, [PutOp(record=rec("build-tips"))], s.revision)
    d = fs_store.root / "workspaces" / s.key
    assert sorted(p.name for p in d.iterdir()) == ["MEMORY.md", "build-tips.md", "scope.json"]
    assert (d / "build-tips.md").read_bytes() == render_record(rec("build-tips"))
    assert (d / "MEMORY.md").read_text().endswith("- [build-tips](build-tips.md) — About build-tips\n")
    assert '"cwd": "/home/me/Proj Alpha"' in (d / "scope.json").read_text()


def test_noop_commit_touches_nothing_on_disk(fs_store: FileStore) -> None:
    s = fs_store.create_workspace(CWD)
    s = fs_store.commit(s.key, [PutOp(record=rec("a")), PutOp(record=rec("b"))], s.revision)
    before = snapshot_disk(fs_store.root)
    listing = sorted(os.listdir(fs_store.root / "workspaces" / s.key))
    s2 = fs_store.commit(s.key, [PutOp(record=rec("a")), PutOp(record=rec("b"))], s.revision)
    fs_store.commit(s.key, [], None)
    assert s2.revision == s.revision
    assert snapshot_disk(fs_store.root) == before
    assert sorted(os.listdir(fs_store.root / "workspaces" / s.key)) == listing


def test_unchanged_records_keep_mtime_when_others_change(fs_store: FileStore) -> None:
    s = fs_store.create_workspace(CWD)
    s = fs_store.commit(s.key, [PutOp(record=rec("a")), PutOp(record=rec("b"))], s.revision)
    a = fs_store.root / "workspaces" / s.key / "a.md"
    st = a.stat()
    fs_store.commit(s.key, [PutOp(record=rec("b", "\nchanged\n"))], s.revision)
    assert (a.stat().st_mtime_ns, a.stat().st_ino) == (st.st_mtime_ns, st.st_ino)


def test_archive_restore_is_byte_and_mtime_identical(fs_store: FileStore) -> None:
    s = fs_store.create_workspace(CWD)
    s = fs_store.commit(s.key, [PutOp(record=rec("a"))], s.revision)
    d = fs_store.root / "workspaces" / s.key
    (d / "notes.txt").write_bytes(b"someone else's file")
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in d.iterdir()}
    fs_store.recycle.archive(s.key)
    assert not d.exists()
    archived = fs_store.root / "archived" / s.key
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in archived.iterdir()} == before
    fs_store.recycle.restore(s.key)
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in d.iterdir()} == before


def test_symlinked_scope_folder_is_never_followed(fs_store: FileStore, tmp_path: Path) -> None:
    fs_store.create_workspace(CWD)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (fs_store.root / "workspaces" / "evil-0000000000000000").symlink_to(elsewhere)
    assert [i.cwd for i in fs_store.list_workspaces()] == [CWD]
    assert any("symbolic link" in p.reason for p in fs_store.inspect.check())


def _interrupt_after(monkeypatch: pytest.MonkeyPatch, name: str, calls: int) -> None:
    """Die (as a SIGKILL would: no in-process undo) after ``calls`` calls of ``os.<name>``."""
    real = getattr(os, name)
    count = {"n": 0}

    def wrapper(*args: object, **kwargs: object) -> object:
        count["n"] += 1
        if count["n"] > calls:
            raise Interrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, wrapper)
    monkeypatch.setattr(journal, "_abort_after_commit_point", lambda *a: False)


def _die_after_ops(monkeypatch: pytest.MonkeyPatch, ops: int) -> None:
    """Die (no in-process undo) after the apply step settled ``ops`` files."""
    count = {"n": 0}
    for fn in ("_apply_replace", "_apply_create", "_apply_delete"):
        real = getattr(journal, fn)

        def wrapper(*args: object, _real: object = real, **kwargs: object) -> object:
            if count["n"] >= ops:
                raise Interrupt
            count["n"] += 1
            return _real(*args, **kwargs)  # type: ignore[operator]

        monkeypatch.setattr(journal, fn, wrapper)
    monkeypatch.setattr(journal, "_abort_after_commit_point", lambda *a: False)


@pytest.mark.parametrize("renames_done", [0, 1, 2])
def test_interrupted_after_commit_point_rolls_forward(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, renames_done: int
) -> None:
    root = tmp_path / "m"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("a")), PutOp(record=rec("b"))], s.revision)
    with monkeypatch.context() as m:
        _die_after_ops(m, renames_done)
        with pytest.raises(Interrupt):
            store.commit(s.key, [PutOp(record=rec("a", "\nnew\n")), DeleteOp(name="b"), PutOp(record=rec("c"))], None)
    assert journal_recovery.pending(root) == [s.key]
    reopened = FileStore(root)
    assert reopened.recovered == [(s.key, "rolled forward")]
    snap = reopened.read_workspace(s.key)
    assert [e.name for e in snap.entries] == ["a", "c"]
    assert snap.get("a").record.body == "\nnew\n"  # type: ignore[union-attr]
    assert "[c](c.md)" in snap.index_text and "[b](b.md)" not in snap.index_text
    assert {h.name for h in reopened.history.entries(s.key)} == {"a", "b"}
    assert journal_recovery.pending(root) == []


def test_interrupted_before_commit_point_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "m"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("a"))], s.revision)
    before = snapshot_disk(root)
    with monkeypatch.context() as m:
        _interrupt_after(m, "replace", 0)  # dies writing the journal: staged files exist, no journal
        with pytest.raises(Interrupt):
            store.commit(s.key, [PutOp(record=rec("a", "\nnew\n")), PutOp(record=rec("z"))], None)
    assert journal_recovery.pending(root) == [s.key]
    reopened = FileStore(root)
    assert reopened.recovered == [(s.key, "discarded")]
    assert snapshot_disk(root) == before
    assert reopened.history.entries(s.key) == []


def test_next_mutation_settles_a_crashed_transaction_without_reopen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "m"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    with monkeypatch.context() as m:
        _die_after_ops(m, 1)
        with pytest.raises(Interrupt):
            store.commit(s.key, [PutOp(record=rec("a")), PutOp(record=rec("b"))], s.revision)
    other = FileStore(root)  # e.g. the CLI, started before the GUI crashed: recovery ran at open
    snap = other.read_workspace(s.key)
    assert [e.name for e in snap.entries] == ["a", "b"]
    with pytest.raises(ConflictError):
        store.commit(s.key, [PutOp(record=rec("c"))], s.revision)


def test_threads_share_a_store_without_lost_updates(fs_store: FileStore) -> None:
    s = fs_store.create_workspace(CWD)
    key = s.key
    fs_store.commit(key, [PutOp(record=rec("counter", "0\n"))], s.revision)
    conflicts = []

    def worker() -> None:
        done = 0
        while done < 10:
            snap = fs_store.read_workspace(key)
            value = int(snap.get("counter").record.body)  # type: ignore[union-attr]
            try:
                fs_store.commit(key, [PutOp(record=rec("counter", f"{value + 1}\n"))], snap.revision)
                done += 1
            except ConflictError:
                conflicts.append(1)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert fs_store.read_workspace(key).get("counter").record.body == "40\n"  # type: ignore[union-attr]


def test_external_edit_is_seen_even_with_same_size(fs_store: FileStore) -> None:
    s = fs_store.create_workspace(CWD)
    s = fs_store.commit(s.key, [PutOp(record=rec("a", "\nAAAA\n"))], s.revision)
    path = fs_store.root / "workspaces" / s.key / "a.md"
    st = path.stat()
    path.write_bytes(path.read_bytes().replace(b"AAAA", b"BBBB"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime: only ctime moves
    snap = fs_store.read_workspace(s.key)
    assert snap.get("a").record.body == "\nBBBB\n"  # type: ignore[union-attr]
    assert snap.revision != s.revision


def test_symlinked_global_is_reported_and_never_replaced(fs_store: FileStore, tmp_path: Path) -> None:
    target = tmp_path / "dotfiles-global.md"
    target.write_text("# Mine\n")
    fs_store.root.mkdir(parents=True)
    (fs_store.root / "GLOBAL.md").symlink_to(target)
    g = fs_store.read_global()
    assert not g.exists and any("symbolic link" in r for r in g.invalid_reasons)
    assert any(p.path == "GLOBAL.md" for p in fs_store.inspect.check())
    with pytest.raises(InvalidRecordError):
        fs_store.replace_global("# New\n", None)
    assert (fs_store.root / "GLOBAL.md").is_symlink() and target.read_text() == "# Mine\n"


def test_remove_tree_never_follows_a_link_and_handles_subfolders(tmp_path: Path) -> None:
    """remove_tree (settled staging folders, purged scopes): a symlink inside is removed itself, its
    target kept; a subfolder hands over to shutil.rmtree, which removes the rest."""
    from core.atomic import remove_tree

    outside = tmp_path / "outside.md"
    outside.write_bytes(b"not ours\n")
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "0001.new").write_bytes(b"x")
    (flat / "link.md").symlink_to(outside)
    remove_tree(flat)
    assert not flat.exists() and outside.read_bytes() == b"not ours\n"
    nested = tmp_path / "nested"
    (nested / "sub" / "deeper").mkdir(parents=True)
    (nested / "a").write_bytes(b"a")
    (nested / "sub" / "b").write_bytes(b"b")
    (nested / "sub" / "link").symlink_to(tmp_path, target_is_directory=True)
    remove_tree(nested)
    assert not nested.exists() and outside.exists()
