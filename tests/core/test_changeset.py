"""core.changeset: the Workspace tab's staged batch, driven without Qt over a real FileStore."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.changeset import ChangeSet, commit_changes, load_workspace
from core.errors import ConflictError, UsageError
from core.models import PutOp, Record
from core.store.fs import FileStore


def _record(name: str, body: str = "", description: str = "") -> Record:
    return Record(name=name, type="project", description=description or f"About {name}", body=body or f"\n{name}.\n")


@pytest.fixture
def store(tmp_path: Path) -> FileStore:
    return FileStore(tmp_path / "memory")


@pytest.fixture
def key(store: FileStore, tmp_path: Path) -> str:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    snap = store.create_workspace(str(cwd))
    store.commit(snap.key, [PutOp(record=_record("alpha")), PutOp(record=_record("beta"))], snap.revision)
    return snap.key


def test_staging_a_put_a_rename_and_a_delete(store: FileStore, key: str) -> None:
    changes = ChangeSet(load_workspace(store, key))
    assert not changes and changes.known_names() == {"alpha", "beta"}
    changes.stage_put(_record("gamma"))  # new
    changes.stage_put(_record("alpha2", "\nrenamed.\n"), replacing="alpha")  # rename: delete + put
    assert changes.stage_delete("beta")
    assert {n: type(op).__name__ for n, op in changes.staged.items()} == {
        "gamma": "PutOp",
        "alpha": "DeleteOp",
        "alpha2": "PutOp",
        "beta": "DeleteOp",
    }
    assert changes.known_names() == {"gamma", "alpha2"}
    rows = {r.name: r.staged for r in changes.rows()}
    assert rows == {"alpha": "deleted", "beta": "deleted", "gamma": "new", "alpha2": "new"}
    # Dropping a staged new record is not a delete of anything on disk.
    assert not changes.stage_delete("gamma") and "gamma" not in changes.staged


def test_putting_back_what_is_on_disk_unstages_it(store: FileStore, key: str) -> None:
    changes = ChangeSet(load_workspace(store, key))
    changes.stage_put(_record("alpha", "\nchanged.\n"))
    assert "alpha" in changes.staged
    changes.stage_put(store.read_workspace(key).get("alpha").record)  # type: ignore[union-attr]
    assert not changes


def test_diff_covers_every_file_and_the_index(store: FileStore, key: str) -> None:
    changes = ChangeSet(load_workspace(store, key))
    assert changes.diff() == ""
    changes.stage_put(_record("alpha", "\nchanged.\n"))
    changes.stage_put(_record("gamma", description="A new one"))
    changes.stage_delete("beta")
    diff = changes.diff()
    assert "--- a/alpha.md\n+++ b/alpha.md" in diff and "+changed." in diff
    assert "--- /dev/null\n+++ b/gamma.md" in diff
    assert "--- a/beta.md\n+++ /dev/null" in diff
    assert "--- a/MEMORY.md\n+++ b/MEMORY.md" in diff and "+- [gamma](gamma.md)" in diff


def test_an_invalid_file_is_read_through_the_store_and_diffed_as_it_is(store: FileStore, key: str) -> None:
    raw = b"---\nname: Broken Name\n---\nx\n"
    (Path(store.root) / "workspaces" / key / "broken.md").write_bytes(raw)
    loaded = load_workspace(store, key)
    entry = loaded.snapshot.get("broken")
    assert entry is not None and not entry.is_valid
    assert loaded.raw == {"broken.md": raw} and loaded.raw_text(entry) == raw.decode()
    changes = ChangeSet(loaded)
    changes.stage_put(_record("broken", "\nfixed.\n"))
    assert "-name: Broken Name" in changes.diff()


def test_read_record_file_refuses_paths_and_symlinks(store: FileStore, key: str, tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("not memory\n")
    (Path(store.root) / "workspaces" / key / "link.md").symlink_to(outside)
    assert store.inspect.record_file(key, "link.md") is None
    with pytest.raises(UsageError):
        store.inspect.record_file(key, "../../secret.md")


def test_commit_is_a_compare_and_swap_on_the_batch_base(store: FileStore, key: str) -> None:
    changes = ChangeSet(load_workspace(store, key))
    changes.stage_put(_record("gamma"))
    other = ChangeSet(load_workspace(store, key))
    other.stage_delete("alpha")
    loaded = commit_changes(store, key, changes.ops, changes.base_revision)
    assert loaded.snapshot.get("gamma") is not None
    before = store.read_workspace(key)
    with pytest.raises(ConflictError):
        commit_changes(store, key, other.ops, other.base_revision)  # built on the old revision
    assert store.read_workspace(key).revision == before.revision  # nothing written
    other.rebase(load_workspace(store, key))  # re-review against disk, then it goes through
    assert commit_changes(store, key, other.ops, other.base_revision).snapshot.get("alpha") is None


def test_has_memory(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    assert not store.inspect.has_memory()
    (tmp_path / "memory" / "workspaces").mkdir(parents=True)
    assert not store.inspect.has_memory()
    store.replace_global("# me\n", store.read_global().revision)
    assert store.inspect.has_memory()
