"""Undo of a scope's last commit (core/undo.py + the store's commit log), over both store backends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.errors import SecretRefusedError, UndoRefusedError
from core.models import EMPTY_REVISION, DeleteOp, PutOp, Record
from core.records import render_record
from core.store.base import StoreCore
from core.store.commit_log import MAX_ENTRIES, log_rel
from core.store.fs import FileStore
from core.store.memory import InMemoryStore
from core.undo import GLOBAL, last_commit, plan_undo, undo_last_commit

CWD = "/home/me/undo-proj"
FAKE_KEY = "sk-" + "Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Lz"


def rec(name: str, body: str = "\nA fact.\n") -> Record:
    return Record(name=name, description=f"About {name}", type="project", body=body)


@pytest.fixture(params=["fs", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreCore]:
    yield FileStore(tmp_path / "memory") if request.param == "fs" else InMemoryStore()


def _ws(store: StoreCore) -> str:
    return store.create_workspace(CWD).key


def _files(store: StoreCore, key: str) -> dict[str, bytes]:
    snap = store.read_workspace(key)
    return {e.name: store.inspect.record_file(key, e.file_name) or b"" for e in snap.entries}


def test_undo_of_a_create_deletes_into_history(store: StoreCore) -> None:
    key = _ws(store)
    s1 = store.commit(key, [PutOp(record=rec("keep"))], None)
    s2 = store.commit(key, [PutOp(record=rec("new-one"))], s1.revision)
    undone = undo_last_commit(store, key)
    assert undone.revision == s1.revision  # back to exactly the state before
    assert sorted(_files(store, key)) == ["keep"]
    deleted = store.history.entries(key, "new-one")
    assert deleted and deleted[0].reason == "delete"
    assert store.history.read(deleted[0].id) == render_record(rec("new-one"))
    assert s2.revision != s1.revision


def test_undo_of_a_delete_and_an_overwrite_restores_the_bytes(store: StoreCore) -> None:
    key = _ws(store)
    s1 = store.commit(key, [PutOp(record=rec("a")), PutOp(record=rec("b"))], None)
    before = _files(store, key)
    store.commit(key, [DeleteOp(name="a"), PutOp(record=rec("b", "\nChanged.\n"))], s1.revision)
    assert sorted(_files(store, key)) == ["b"]
    undo_last_commit(store, key)
    assert _files(store, key) == before
    assert store.read_workspace(key).revision == s1.revision


def test_undo_of_undo_reapplies_the_commit(store: StoreCore) -> None:
    key = _ws(store)
    s1 = store.commit(key, [PutOp(record=rec("a"))], None)
    s2 = store.commit(key, [PutOp(record=rec("a", "\nSecond.\n")), PutOp(record=rec("c"))], s1.revision)
    after = _files(store, key)
    assert undo_last_commit(store, key).revision == s1.revision
    assert undo_last_commit(store, key).revision == s2.revision  # the undo was a commit: undone in turn
    assert _files(store, key) == after


def test_stale_revision_is_refused_and_memory_unchanged(store: StoreCore) -> None:
    key = _ws(store)
    s1 = store.commit(key, [PutOp(record=rec("a"))], None)
    store.commit(key, [PutOp(record=rec("a", "\nSecond.\n"))], s1.revision)
    log_before = store.history.commit_log(key)
    # Another program writes to the record after that commit.
    other = render_record(rec("a", "\nAn agent wrote this.\n"))
    if isinstance(store, FileStore):
        assert store.root is not None
        (store.root / "workspaces" / key / "a.md").write_bytes(other)
    else:
        assert isinstance(store, InMemoryStore)
        store.put_raw(key, "a.md", other)
    files, revision = _files(store, key), store.read_workspace(key).revision
    with pytest.raises(UndoRefusedError) as info:
        undo_last_commit(store, key)
    assert info.value.kind == "changed"
    assert "changed after that commit" in info.value.message
    assert _files(store, key) == files and store.read_workspace(key).revision == revision
    assert store.history.commit_log(key) == log_before  # nothing logged either


def test_nothing_to_undo(store: StoreCore) -> None:
    key = _ws(store)
    with pytest.raises(UndoRefusedError) as info:
        plan_undo(store, key)
    assert info.value.kind == "nothing"
    with pytest.raises(UndoRefusedError):
        undo_last_commit(store, GLOBAL)


def test_global_undo_and_undo_of_undo(store: StoreCore) -> None:
    g1 = store.replace_global("# Profile\nLikes tea.\n", EMPTY_REVISION)
    store.replace_global("# Profile\nLikes coffee.\n", g1.revision)
    assert undo_last_commit(store, GLOBAL).text == "# Profile\nLikes tea.\n"
    assert undo_last_commit(store, GLOBAL).text == "# Profile\nLikes coffee.\n"
    entry = last_commit(store, GLOBAL)
    assert entry is not None and entry.origin == "manual"


def test_global_stale_is_refused(store: StoreCore) -> None:
    g1 = store.replace_global("one\n", EMPTY_REVISION)
    store.replace_global("two\n", g1.revision)
    if isinstance(store, FileStore):
        assert store.root is not None
        (store.root / "GLOBAL.md").write_text("edited by hand\n")
    else:
        return  # the in-memory store has no back door for GLOBAL.md; the fs case covers it
    with pytest.raises(UndoRefusedError) as info:
        undo_last_commit(store, GLOBAL)
    assert info.value.kind == "changed"
    assert store.read_global().text == "edited by hand\n"


def test_commit_together_is_logged_per_scope(store: StoreCore) -> None:
    key = _ws(store)
    store.commit_together(
        key, [PutOp(record=rec("x"))], None, global_text="G\n", global_expect=None, origin="automatic"
    )
    ws_entry, g_entry = last_commit(store, key), last_commit(store, GLOBAL)
    assert ws_entry is not None and [c.kind for c in ws_entry.changes] == ["create"]
    assert ws_entry.origin == "automatic"
    assert g_entry is not None and g_entry.changes[0].kind == "create"
    undo_last_commit(store, key)
    assert _files(store, key) == {}
    assert undo_last_commit(store, GLOBAL).text == ""  # undoing the creation of GLOBAL.md empties it


def test_undo_putting_back_a_secret_asks(store: StoreCore) -> None:
    key = _ws(store)
    s1 = store.commit(key, [PutOp(record=rec("a", f"\nkey = '{FAKE_KEY}'\n"))], None, allow_secrets=True)
    store.commit(key, [PutOp(record=rec("a"))], s1.revision)
    with pytest.raises(SecretRefusedError):
        undo_last_commit(store, key)
    assert undo_last_commit(store, key, allow_secrets=True).revision == s1.revision


def test_log_is_bounded_and_a_damaged_log_is_never_acted_on(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    key = _ws(store)
    rev = store.read_workspace(key).revision
    for i in range(MAX_ENTRIES + 3):
        rev = store.commit(key, [PutOp(record=rec("a", f"\nv{i}\n"))], rev).revision
    assert len(store.history.commit_log(key)) == MAX_ENTRIES
    path = tmp_path / "memory" / log_rel(key)
    assert path.stat().st_mode & 0o077 == 0  # private
    doc = json.loads(path.read_text())
    doc["entries"][-1]["changes"][0]["before"] = None  # tampered: would turn an overwrite into a create
    doc["entries"][-1]["surprise"] = 1
    path.write_text(json.dumps(doc))
    assert store.history.commit_log(key) == []
    files = _files(store, key)
    with pytest.raises(UndoRefusedError):
        undo_last_commit(store, key)
    assert _files(store, key) == files
    # The next commit starts a fresh log.
    store.commit(key, [PutOp(record=rec("b"))], rev)
    assert len(store.history.commit_log(key)) == 1


def test_purge_drops_the_log(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    key = _ws(store)
    snap = store.commit(key, [PutOp(record=rec("a"))], None)
    store.recycle.archive(key, snap.revision)
    store.recycle.purge(key, snap.info.display_name)
    assert not (tmp_path / "memory" / log_rel(key)).exists()


def test_a_crashed_log_write_leaves_no_temp_file_after_reopen(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    key = _ws(store)
    store.commit(key, [PutOp(record=rec("a"))], None)
    log_dir = (tmp_path / "memory" / log_rel(key)).parent
    temp = log_dir / f".dshtmp-0123456789ab-{key}.json"  # what a SIGKILL mid-write leaves
    temp.write_text("{partial")
    FileStore(tmp_path / "memory")  # the next open settles it
    assert not temp.exists()
    assert len(store.history.commit_log(key)) == 1


def test_the_log_parses_back_to_what_was_rendered(tmp_path: Path) -> None:
    """parse_log keeps the entries it rendered last (no re-validation); a fresh parse of the same
    bytes, with that memory cleared, gives the same entries."""

    store = FileStore(tmp_path / "memory")
    key = _ws(store)
    rev = store.read_workspace(key).revision
    for i in range(3):
        rev = store.commit(key, [PutOp(record=rec("a", f"\nv{i}\n")), PutOp(record=rec(f"n{i}"))], rev).revision
    remembered = store.history.commit_log(key)
    store.caches.commit_logs.clear()
    assert store.history.commit_log(key) == remembered
    assert len(remembered) == 3 and remembered[0].after == rev
