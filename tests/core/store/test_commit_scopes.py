"""Issue 28: ``commit_scopes`` — Global plus any number of workspaces (and archives) as ONE transaction.

Contract over both backends (every scope changes or none; CAS under the locks; MEMORY.md rebuilt,
history and commit log kept; a batch that changes nothing touches nothing); then, on the file store,
a real child process SIGKILLed at every file-system step of the transaction, for a journal with a
joined name and one with a hashed name: after a reopen every scope is all old or all new, together.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from hostile_support import rec
from test_store_faults import leftovers

from core import atomic
from core.errors import ConflictError, NotFoundError, SecretRefusedError, UsageError
from core.keys import workspace_key
from core.models import DeleteOp, PutOp, ScopeBatch
from core.records import render_index
from core.store import journal, journal_doc, journal_recovery
from core.store.base import StoreCore
from core.store.fs import FileStore

G1 = "# Global\n\nv1\n"
G2 = "# Global\n\nv2\n"
SHORT = ("/home/me/a", "/home/me/b", "/home/me/c", "/home/me/old")
LONG = tuple(f"/home/me/{c * 48}" for c in "wxyz")  # keys of 65 characters: a hashed staging name


def _setup(store: StoreCore, cwds: tuple[str, ...] = SHORT) -> list[str]:
    store.replace_global(G1, None)
    keys = []
    for cwd in cwds:
        s = store.create_workspace(cwd)
        store.commit(s.key, [PutOp(record=rec("keep")), PutOp(record=rec("old"))], s.revision)
        keys.append(s.key)
    return keys


def _ops() -> list[PutOp | DeleteOp]:
    return [PutOp(record=rec("old", "\nnew\n")), PutOp(record=rec("fresh")), DeleteOp(name="keep")]


def _batches(store: StoreCore, keys: list[str]) -> list[ScopeBatch]:
    return [ScopeBatch(k, _ops(), store.read_workspace(k).revision) for k in keys]


def _state(store: StoreCore, keys: list[str]) -> tuple[object, ...]:
    return (
        store.read_global(),
        *(store.read_workspace(k) for k in keys),
        len(store.history.entries()),
        tuple(i.key for i in store.list_workspaces(archived=True)),
    )


def test_several_workspaces_and_global_in_one_transaction(store: StoreCore) -> None:
    a, b, c, old = _setup(store)
    g = store.read_global()
    result = store.commit_scopes(
        _batches(store, [c, a, b]), global_text=G2, global_expect=g.revision, archive=[old]
    )
    assert result.global_ is not None and result.global_.text == G2 == store.read_global().text
    assert set(result.workspaces) == {a, b, c}
    for k in (a, b, c):
        snap = store.read_workspace(k)
        assert result.workspaces[k] == snap
        assert sorted(e.name for e in snap.entries) == ["fresh", "old"]
        assert snap.index_text.encode() == render_index(snap.records())  # MEMORY.md rebuilt with them
        assert [e.name for e in store.history.commit_log(k)[0].changes] == ["fresh", "keep", "old"]
    assert [i.key for i in result.archived] == [old] and [i.key for i in store.list_workspaces(archived=True)] == [old]
    assert old not in {i.key for i in store.list_workspaces()}
    assert result.archived[0].archived_at is not None
    replaced = {(h.scope_key, h.name) for h in store.history.entries()}
    assert replaced >= {(k, n) for k in (a, b, c) for n in ("keep", "old", "MEMORY")} - {
        (k, "MEMORY") for k in (a, b, c)
    }
    assert ("global", "GLOBAL") in replaced
    assert store.history.commit_log("global")[0].after == result.global_.revision
    restored = store.recycle.restore(old)  # an archive made by a transaction is an ordinary archive
    assert restored.record_count == 2


@pytest.mark.parametrize("stale", ["global", "first", "last", "archived"])
def test_a_stale_revision_anywhere_writes_nothing_anywhere(store: StoreCore, stale: str) -> None:
    a, b, c, old = _setup(store)
    g = store.read_global()
    batches = _batches(store, [a, b, c])
    if stale == "global":
        store.replace_global("# someone else\n", g.revision)
    elif stale == "first":
        store.commit(a, [PutOp(record=rec("other"))], None)
    elif stale == "last":
        store.commit(c, [PutOp(record=rec("other"))], None)
    else:
        store.create_workspace("/home/me/elsewhere")
        store.recycle.archive(workspace_key("/home/me/elsewhere"))
        s = store.create_workspace("/home/me/elsewhere")  # an active one beside its archived copy
        old = s.key
    before = _state(store, [a, b, c])
    with pytest.raises(ConflictError):
        store.commit_scopes(batches, global_text=G2, global_expect=g.revision, archive=[old])
    assert _state(store, [a, b, c]) == before


def test_a_secret_in_one_batch_refuses_them_all(store: StoreCore) -> None:
    a, b, c, _ = _setup(store)
    batches = _batches(store, [a, b])
    batches.append(ScopeBatch(c, [PutOp(record=rec("leak", "\nDB_PASSWORD=hunter2024\n"))], None))
    before = _state(store, [a, b, c])
    with pytest.raises(SecretRefusedError):
        store.commit_scopes(batches, global_text=G2, origin="automatic")
    assert _state(store, [a, b, c]) == before


def test_a_batch_that_changes_nothing_touches_nothing(store: StoreCore) -> None:
    a, b, _, _ = _setup(store)
    same = store.read_workspace(b)
    log = store.history.commit_log(b)
    keep = store.read_workspace(b).get("keep")
    assert keep is not None and keep.record is not None
    unchanged = [PutOp(record=keep.record)]
    result = store.commit_scopes([ScopeBatch(a, _ops(), None), ScopeBatch(b, unchanged, same.revision)])
    assert result.workspaces[b] == same == store.read_workspace(b)
    assert store.history.commit_log(b) == log
    assert result.global_ is None
    if isinstance(store, FileStore):
        assert store.root is not None
        folder = store.root / "workspaces" / b
        stamps = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
        store.commit_scopes([ScopeBatch(b, unchanged, None)])
        assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == stamps


def test_bad_requests_are_refused_before_anything(store: StoreCore) -> None:
    a, b, _, _ = _setup(store)
    before = _state(store, [a, b])
    with pytest.raises(UsageError):
        store.commit_scopes([ScopeBatch(a, _ops(), None), ScopeBatch(a, _ops(), None)])
    with pytest.raises(UsageError):
        store.commit_scopes([ScopeBatch(a, _ops(), None)], archive=[a])
    with pytest.raises(NotFoundError):
        store.commit_scopes([ScopeBatch(a, _ops(), None)], archive=["nope-0000000000000000"])
    assert _state(store, [a, b]) == before


def test_commit_together_is_the_one_workspace_case(store: StoreCore) -> None:
    a, *_ = _setup(store)
    g = store.read_global()
    ws, g2 = store.commit_together(a, _ops(), None, global_text=G2, global_expect=g.revision)
    assert g2.text == G2 and sorted(e.name for e in ws.entries) == ["fresh", "old"]


def test_a_long_key_list_gets_a_hashed_confined_staging_name(tmp_path: Path) -> None:
    scopes = ["global", *sorted(workspace_key(c) for c in LONG)]
    name = journal_doc.tx_name(scopes)
    assert name.startswith(journal_doc.HASHED_PREFIX) and len(name.encode()) < 100
    assert journal_doc.tx_name(["global", "a-1"]) == "global+a-1"  # the bytes of a two-scope journal stay
    assert "archive" not in journal_doc.make_doc("commit", ["global", "a-1"]).to_json()
    root = tmp_path / "m"
    staging = journal_doc.staging_dir(root, name)
    staging.mkdir(parents=True)
    (staging / journal_doc.SCOPES_FILE).write_text(json.dumps(scopes))
    assert journal_doc.tx_scopes(root, name) == scopes
    (staging / journal_doc.SCOPES_FILE).write_text(json.dumps(["global", "etc"]))  # forged: names another scope
    assert journal_doc.tx_scopes(root, name) is None
    FileStore(root)  # no journal: it never reached its commit point, so nothing of it is kept
    assert journal_recovery.pending(root) == [] and not journal_recovery.quarantined(root)
    staging.mkdir()
    (staging / journal_doc.SCOPES_FILE).write_text(json.dumps(["global", "etc"]))
    (staging / journal_doc.JOURNAL_NAMES[0]).write_text("{}")
    FileStore(root)  # a journal whose scopes can't be trusted: never acted on, kept for the user
    assert journal_recovery.pending(root) == [] and len(journal_recovery.quarantined(root)) == 1


# --- a real child process SIGKILLed at every step --------------------------------------------------
STEPS: list[tuple[Any, str]] = [
    (atomic, "_renameat2"),  # RENAME_EXCHANGE / RENAME_NOREPLACE
    (os, "replace"),
    (os, "rename"),
    (os, "fsync"),
    (os, "link"),
    (os, "unlink"),
    (os, "write"),
    (os, "mkdir"),
]
"""Every call that changes what is on disk (reads are not steps: nothing can tear there)."""


def _counting(step: int | None, calls: list[str]) -> list[tuple[Any, str, Any]]:
    """Patch STEPS to count calls (and SIGKILL this process at call ``step``); the originals."""
    saved = [(mod, attr, getattr(mod, attr)) for mod, attr in STEPS]
    for mod, attr, real in saved:

        def wrapper(*args: Any, _real: Any = real, _name: str = attr, **kwargs: Any) -> Any:
            if len(calls) == step:
                os.kill(os.getpid(), signal.SIGKILL)
            calls.append(_name)
            return _real(*args, **kwargs)

        setattr(mod, attr, wrapper)
    return saved
def _fixed_clock() -> Any:
    from datetime import UTC, datetime

    return datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def _outcome(root: Path, keys: list[str]) -> set[str]:
    """"old" or "new" for every scope as a fresh open sees it (the set of them: one value if whole)."""
    store = FileStore(root)
    assert journal_recovery.pending(root) == [] and not leftovers(root)
    seen = {"new" if store.read_global().text == G2 else "old"}
    for k in keys[:3]:
        snap = store.read_workspace(k)
        names = tuple(sorted(e.name for e in snap.entries))
        seen.add({("keep", "old"): "old", ("fresh", "old"): "new"}[names])  # type: ignore[index]
        assert snap.index_text.encode() == render_index(snap.records()), "MEMORY.md torn from its records"
        assert snap.info.invalid_count == 0
    archived = [i.key for i in store.list_workspaces(archived=True)]
    active = {i.key for i in store.list_workspaces()}
    seen.add("new" if archived == [keys[3]] and keys[3] not in active else "old")
    assert (keys[3] in active) != (archived == [keys[3]]), "the archived workspace is in both places or none"
    if keys[3] in active:
        assert not (root / ".manager" / "archive" / f"{keys[3]}.json").exists(), "a stamp left by an undone archive"
    return seen


def _kill_at(step: int, root: Path, keys: list[str]) -> int:
    """Fork a child that runs the transaction and SIGKILLs itself at write step ``step``."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            store = FileStore(root, clock=_fixed_clock)
            g = store.read_global()
            batches = _batches(store, keys[:3])
            _counting(step, [])
            store.commit_scopes(batches, global_text=G2, global_expect=g.revision, archive=[keys[3]])
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return status


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
@pytest.mark.parametrize("cwds", [SHORT, LONG], ids=["joined-name", "hashed-name"])
def test_sigkill_at_every_step_leaves_every_scope_all_old_or_all_new(tmp_path: Path, cwds: tuple[str, ...]) -> None:
    count_root = tmp_path / "count"
    keys = _setup(FileStore(count_root, clock=_fixed_clock), cwds)
    store = FileStore(count_root, clock=_fixed_clock)
    g = store.read_global()
    batches = _batches(store, keys[:3])
    calls: list[str] = []
    saved = _counting(None, calls)
    try:
        store.commit_scopes(batches, global_text=G2, global_expect=g.revision, archive=[keys[3]])
    finally:
        for mod, attr, real in saved:
            setattr(mod, attr, real)
    total = len(calls)
    assert total > 30 and _outcome(count_root, keys) == {"new"}
    tally: dict[str, int] = {}
    for step in range(total + 1):
        root = tmp_path / f"r{step}"
        keys = _setup(FileStore(root, clock=_fixed_clock), cwds)
        early = FileStore(root)  # open before the kill: its next write settles the transaction itself
        status = _kill_at(step, root, keys)
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        assert killed or step >= total, f"step {step} of {total}: the child finished early"
        if step % 3 == 0 and journal_recovery.pending(root):
            early.commit(keys[1], [], None)  # a no-op commit still settles what covers its scope
            assert journal_recovery.pending(root) == [], f"step {step}: a writer of one scope did not settle it"
        seen = _outcome(root, keys)
        assert len(seen) == 1, f"step {step}: scopes disagree after the reopen: {seen}"
        state = seen.pop()
        tally[state] = tally.get(state, 0) + 1
    assert tally.get("old", 0) > 0 and tally.get("new", 0) > 0, tally
    print(f"\n{total + 1} kills ({'hashed' if cwds is LONG else 'joined'} name): {tally}")


class Died(BaseException):
    """Stands for a SIGKILL: raised out of the apply step, with the in-process undo disabled."""


@pytest.mark.parametrize("moved", [False, True], ids=["before-the-rename", "after-the-rename"])
def test_an_archive_in_a_transaction_is_rolled_forward_after_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, moved: bool
) -> None:
    root = tmp_path / "m"
    store = FileStore(root, clock=_fixed_clock)
    a, b, c, old = _setup(store)
    real = journal._apply_archive

    def dies(*args: Any) -> None:
        if moved:
            real(*args)
        raise Died

    with monkeypatch.context() as m:
        m.setattr(journal, "_apply_archive", dies)
        m.setattr(journal, "_abort_after_commit_point", lambda *a: False)
        with pytest.raises(Died):
            store.commit_scopes(_batches(store, [a, b]), global_text=G2, archive=[old])
    assert journal_recovery.pending(root)  # the journal is left: the commit point was passed
    again = FileStore(root)
    assert journal_recovery.pending(root) == [] and again.recovered and again.recovered[0][1] == "rolled forward"
    assert [i.key for i in again.list_workspaces(archived=True)] == [old]
    info = again.list_workspaces(archived=True)[0]
    assert info.archived_at == _fixed_clock() and info.record_count == 2  # its stamp, from the journal
    assert again.read_global().text == G2
    assert all(sorted(e.name for e in again.read_workspace(k).entries) == ["fresh", "old"] for k in (a, b))
    assert again.read_workspace(c).get("keep") is not None  # not in the transaction: untouched


def test_a_hashed_folder_being_made_is_left_to_its_writer(tmp_path: Path) -> None:
    """Before its scopes file is whole a hashed staging folder can't say whose it is: while another
    process holds the lock named after it (its writer, making it) nobody touches it; once that lock
    is free and there still is no scopes file, the writer died before its commit point: dropped."""
    from core.store.locking import ScopeLocks

    root = tmp_path / "m"
    FileStore(root).create_workspace("/home/me/a")
    name = journal_doc.tx_name(["global", *sorted(workspace_key(c) for c in LONG)])
    staging = journal_doc.staging_dir(root, name)
    staging.mkdir(parents=True)
    (staging / "0001.new").write_bytes(b"staged")
    writer = ScopeLocks(root / ".manager" / "locks")  # another open file description: flock conflicts
    with writer.hold(name):
        FileStore(root).commit(workspace_key("/home/me/a"), [PutOp(record=rec("x"))], None)
        assert journal_recovery.pending(root) == [name] and (staging / "0001.new").exists()
    again = FileStore(root)
    assert journal_recovery.pending(root) == [] and again.recovered == [(name, "discarded")]


def test_a_hashed_folder_whose_scopes_file_turns_whole_meanwhile_is_settled_not_quarantined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race of the rule above: read without its scopes file, then found whole once its lock is
    ours (its writer finished making it in between). It is a real transaction: rolled forward."""
    from core.store import fs_recovery

    root = tmp_path / "m"
    store = FileStore(root, clock=_fixed_clock)
    keys = _setup(store, LONG)
    with monkeypatch.context() as m:
        m.setattr(journal, "_apply_archive", lambda *a: (_ for _ in ()).throw(Died()))
        m.setattr(journal, "_abort_after_commit_point", lambda *a: False)
        with pytest.raises(Died):
            store.commit_scopes(_batches(store, keys[:3]), global_text=G2, archive=[keys[3]])
    (name,) = journal_recovery.pending(root)
    assert name.startswith(journal_doc.HASHED_PREFIX)
    real = fs_recovery.tx_scopes
    reads: list[str] = []

    def late(root_: Path, name_: str) -> list[str] | None:
        reads.append(name_)
        return None if len(reads) == 1 else real(root_, name_)  # not whole at the first read

    monkeypatch.setattr(fs_recovery, "tx_scopes", late)
    again = FileStore(root)
    assert again.recovered == [(name, "rolled forward")] and not journal_recovery.quarantined(root)
    assert _outcome(root, keys) == {"new"}
