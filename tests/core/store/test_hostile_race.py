"""Issue 9, item 1: a direct writer (an agent replacing files without our lock) never loses a version.

A real second process replaces the file every millisecond while this process commits to it. Every
version the agent wrote must end up either on disk, in history, or superseded by the agent itself:
the store never displaces bytes it did not read. The figure is printed (run with ``-s`` to see it).
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from hostile_support import CWD, agent_version, direct_writer, fork, read_all, rec

from core import atomic
from core.errors import ConflictError
from core.models import DeleteOp, PutOp
from core.store import journal, journal_doc, rules
from core.store.fs import FileStore

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork() for a real second process")


def _race(tmp_path: Path, rounds: int, *, delete_every: int = 0) -> dict[str, int]:
    # Retention is not under test here: keep every version, so a pruned one can't pass for a lost one.
    rules.HISTORY_MAX_VERSIONS, saved = 100_000, rules.HISTORY_MAX_VERSIONS
    try:
        return _race_once(tmp_path, rounds, delete_every)
    finally:
        rules.HISTORY_MAX_VERSIONS = saved


def _race_once(tmp_path: Path, rounds: int, delete_every: int) -> dict[str, int]:
    root = tmp_path / "m"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("shared", "\nStore version 0.\n"))], s.revision)
    target = root / "workspaces" / s.key / "shared.md"
    stop = tmp_path / "stop"
    pid, out = fork(direct_writer(target, stop, agent_version))
    commits = conflicts = 0
    try:
        deadline = time.monotonic() + 120
        r = 0
        while r < rounds and time.monotonic() < deadline:
            r += 1
            snap = store.read_workspace(s.key)
            if delete_every and r % delete_every == 0 and snap.get("shared") is not None:
                ops: list[PutOp | DeleteOp] = [DeleteOp(name="shared")]
            else:
                ops = [PutOp(record=rec("shared", f"\nStore version {r}.\n"))]
            try:
                store.commit(s.key, ops, snap.revision)
                commits += 1
            except ConflictError:
                conflicts += 1
    finally:
        stop.touch()
        report = json.loads(read_all(out))
        os.waitpid(pid, 0)
    agent = {agent_version(i): i for i in report["wrote"]}
    kept = {store.history.read(h.id) for h in store.history.entries(s.key, "shared")}
    final = target.read_bytes() if target.exists() else b""
    accounted = {agent[b] for b in kept | {final} if b in agent} | set(report["self_displaced"])
    lost = sorted(set(report["wrote"]) - accounted)
    figures = {
        "rounds": rounds,
        "commits": commits,
        "conflicts": conflicts,
        "agent_versions": len(report["wrote"]),
        "in_history": len({b for b in kept if b in agent}),
        "lost": len(lost),
    }
    print(f"\ndirect-writer race: {figures}")
    assert not list((root / ".manager" / "staging").iterdir())
    return figures


def test_a_direct_writer_is_never_overwritten_unseen(tmp_path: Path) -> None:
    figures = _race(tmp_path, 300)
    assert figures["lost"] == 0
    assert figures["commits"] > 0 and figures["agent_versions"] > 50  # the two really raced


def test_deletes_never_remove_a_version_they_did_not_read(tmp_path: Path) -> None:
    figures = _race(tmp_path, 200, delete_every=3)
    assert figures["lost"] == 0 and figures["commits"] > 0


def test_portable_fallback_still_checks_what_it_replaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without renameat2 the backup is checked right before and after the rename: a writer that got in
    before the check is a conflict, and ordinary commits work the same."""
    monkeypatch.setattr(journal, "_USE_EXCHANGE", False)
    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("a")), PutOp(record=rec("b"))], s.revision)
    s = store.commit(s.key, [PutOp(record=rec("a", "\nnew\n")), DeleteOp(name="b")], s.revision)
    assert [e.name for e in s.entries] == ["a"]
    target = tmp_path / "m" / "workspaces" / s.key / "a.md"
    real = journal._replace_portable

    def agent_gets_in_first(*args: object, **kwargs: object) -> None:
        target.write_bytes(agent_version(1, "a"))  # lands after our CAS read, before our rename
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(journal, "_replace_portable", agent_gets_in_first)
    with pytest.raises(ConflictError):
        store.commit(s.key, [PutOp(record=rec("a", "\nmine\n"))], s.revision)
    assert target.read_bytes() == agent_version(1, "a")


def test_the_moment_of_displacement_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Deterministic version of the race: the agent replaces the file after the CAS re-read under the
    lock, just before the swap. The swap shows it, swaps back, and the commit is a conflict."""
    if not atomic.exchange_supported():
        pytest.skip("renameat2(RENAME_EXCHANGE) is not available on this system")
    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("shared")), PutOp(record=rec("other"))], s.revision)
    target = tmp_path / "m" / "workspaces" / s.key / "shared.md"
    real = journal._exchange_checked

    def agent_first(*args: object, **kwargs: object) -> bool:
        if args[3] == "shared.md":
            tmp = target.with_name(".agent")
            tmp.write_bytes(agent_version(7))
            os.replace(tmp, target)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(journal, "_exchange_checked", agent_first)
    index = target.with_name("MEMORY.md").read_bytes()
    with pytest.raises(ConflictError) as err:
        store.commit(
            s.key, [PutOp(record=rec("other", "\nnew\n")), PutOp(record=rec("shared", "\nmine\n"))], s.revision
        )
    assert err.value.current is not None
    assert target.read_bytes() == agent_version(7)  # theirs, untouched
    assert b"new" not in target.with_name("other.md").read_bytes()  # rolled back as a unit
    assert target.with_name("MEMORY.md").read_bytes() == index
    assert store.history.entries(s.key) == []  # nothing was displaced in the end


def test_global_and_memory_md_are_checked_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = FileStore(tmp_path / "m")
    store.replace_global("# Global\n\nv1\n", None)
    g = store.read_global()
    path = tmp_path / "m" / "GLOBAL.md"
    real = journal._apply_replace

    def agent_first(op: journal_doc.OpDoc, *args: object, **kwargs: object) -> None:
        if op.name in ("GLOBAL.md", "MEMORY.md"):
            (path if op.name == "GLOBAL.md" else index).write_bytes(b"# theirs\n")
        real(op, *args, **kwargs)  # type: ignore[arg-type]

    s = store.create_workspace(CWD)
    index = tmp_path / "m" / "workspaces" / s.key / "MEMORY.md"
    monkeypatch.setattr(journal, "_apply_replace", agent_first)
    with pytest.raises(ConflictError):
        store.replace_global("# Global\n\nv2\n", g.revision)
    assert path.read_bytes() == b"# theirs\n"
    with pytest.raises(ConflictError):
        store.commit(s.key, [PutOp(record=rec("fresh"))], s.revision)
    assert index.read_bytes() == b"# theirs\n"
    assert not (index.parent / "fresh.md").exists()


def test_a_hand_edited_memory_md_is_kept_in_history_when_regenerated(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    index = tmp_path / "m" / "workspaces" / s.key / "MEMORY.md"
    index.write_bytes(b"# My own notes in the index\n")
    s = store.commit(s.key, [PutOp(record=rec("fresh"))], s.revision)
    (entry,) = store.history.entries(s.key, "MEMORY")
    assert store.history.read(entry.id) == b"# My own notes in the index\n"


def test_a_sigkilled_agent_mid_write_never_breaks_a_commit(tmp_path: Path) -> None:
    """The agent dies (SIGKILL) at random moments while replacing the file; the store keeps working."""
    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("shared"))], s.revision)
    target = tmp_path / "m" / "workspaces" / s.key / "shared.md"
    for _ in range(5):
        stop = tmp_path / "never"
        pid, out = fork(direct_writer(target, stop, agent_version, pause=0))
        time.sleep(0.02)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(out)
        snap = store.read_workspace(s.key)
        store.commit(s.key, [PutOp(record=rec("shared", "\nafter a kill\n"))], snap.revision)
    assert store.read_workspace(s.key).get("shared").record.body == "\nafter a kill\n"  # type: ignore[union-attr]
