"""The ledger on disk: incremental, rebuildable, private, safe with two processes, fed by the MCP server."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.mcp.agent import AgentSession
from core.store.fs import FileStore
from core.usage import UsageLedger, UsageView, note_served, usage_dir
from tests.core.usage.usage_logs import call, make_store, write_log

Env = tuple[FileStore, str, Path, Path]
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def env(tmp_path: Path) -> tuple[FileStore, str, Path, Path]:
    project = tmp_path / "proj"
    project.mkdir()
    store, key = make_store(tmp_path / "memory", str(project), {"alpha": "Alpha fact.", "beta": "Beta fact."})
    return store, key, tmp_path / "sessions", project


def _read(store: FileStore, key: str, name: str, seq: int = 1) -> dict[str, object]:
    return call(seq, "read", {"file_path": f"{store.root}/workspaces/{key}/{name}.md"})


def _snapshot(view: UsageView) -> dict[tuple[str, str], tuple[dict[str, int], dict[str, int], int | None]]:
    return {k: (dict(u.counts), dict(u.sessions), u.last_used) for k, u in view.records.items()}


def test_a_new_session_is_read_alone_and_an_unchanged_one_never_again(env: Env) -> None:
    store, key, sessions, project = env
    for i in range(5):
        write_log(sessions, f"s{i}", str(project), [_read(store, key, "alpha")])
    ledger = UsageLedger(store, sessions, quiet_seconds=0)
    first = ledger.update()
    assert (first.sessions_read, first.sessions_kept) == (5, 0)
    again = ledger.update()
    assert (again.sessions_read, again.sessions_kept) == (0, 5)
    write_log(sessions, "s-new", str(project), [_read(store, key, "beta")])
    third = ledger.update()
    assert (third.sessions_read, third.sessions_kept) == (1, 5)
    view = ledger.view()
    assert view.get(key, "alpha").counts == {"opened": 5}  # type: ignore[union-attr]
    assert view.get(key, "beta").counts == {"opened": 1}  # type: ignore[union-attr]


def test_a_session_whose_log_changed_is_read_again_at_its_new_revision(env: Env) -> None:
    store, key, sessions, project = env
    write_log(sessions, "s1", str(project), [_read(store, key, "alpha")])
    ledger = UsageLedger(store, sessions, quiet_seconds=0)
    ledger.update()
    write_log(
        sessions, "s1", str(project), [_read(store, key, "alpha"), _read(store, key, "beta", 2)], mtime=1_700_000_500
    )
    stats = ledger.update()
    assert stats.sessions_read == 1
    view = ledger.view()
    assert view.get(key, "alpha").counts == {"opened": 1}  # type: ignore[union-attr]  # replaced, not added
    assert view.get(key, "beta").counts == {"opened": 1}  # type: ignore[union-attr]


def test_a_live_session_waits_until_it_is_quiet(env: Env) -> None:
    store, key, sessions, project = env
    write_log(sessions, "live", str(project), [_read(store, key, "alpha")], mtime=None)  # written just now
    ledger = UsageLedger(store, sessions, quiet_seconds=120)
    stats = ledger.update()
    assert (stats.sessions_read, stats.sessions_waiting) == (0, 1)
    assert ledger.view().get(key, "alpha") is None
    later = ledger.update(now=os.stat(sessions / "--proj--" / "live" / "session.jsonl").st_mtime + 121)
    assert later.sessions_read == 1


def test_rebuild_equals_the_incremental_result(env: Env) -> None:
    store, key, sessions, project = env
    ledger = UsageLedger(store, sessions, quiet_seconds=0)
    for i in range(4):
        write_log(sessions, f"s{i}", str(project), [_read(store, key, "alpha" if i % 2 else "beta", 1 + i)])
        ledger.update()
    write_log(sessions, "s0", str(project), [_read(store, key, "alpha", 9)], mtime=1_700_000_900)
    ledger.update()
    incremental = _snapshot(ledger.view())
    stats = ledger.update(rebuild=True)
    assert stats.sessions_read == 4
    assert _snapshot(ledger.view()) == incremental
    # ...and a ledger deleted by hand comes back the same from the logs.
    (usage_dir(store) / "ledger.json").unlink()
    ledger.update()
    assert _snapshot(ledger.view()) == incremental


def test_a_deleted_session_leaves_the_ledger(env: Env) -> None:
    store, key, sessions, project = env
    folder = write_log(sessions, "gone", str(project), [_read(store, key, "alpha")])
    ledger = UsageLedger(store, sessions, quiet_seconds=0)
    ledger.update()
    (folder / "session.jsonl").unlink()
    folder.rmdir()
    stats = ledger.update()
    assert stats.sessions_dropped == 1
    assert ledger.view().get(key, "alpha") is None


def test_the_ledger_is_private_and_outside_every_record(env: Env) -> None:
    store, key, sessions, project = env
    write_log(sessions, "s1", str(project), [_read(store, key, "alpha")])
    before = {p: p.read_bytes() for p in (store.root / "workspaces" / key).iterdir()}
    UsageLedger(store, sessions, quiet_seconds=0).update()
    note_served(store, key, ["alpha"], "memory_read", "client-a")
    folder = usage_dir(store)
    assert folder == store.root / ".manager" / "usage"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for name in ("ledger.json", "served.jsonl"):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600
    assert {p: p.read_bytes() for p in (store.root / "workspaces" / key).iterdir()} == before  # records untouched


def test_a_ledger_folder_that_is_a_symlink_is_refused(env: Env, tmp_path: Path) -> None:
    store, key, sessions, project = env
    outside = tmp_path / "outside"
    outside.mkdir()
    (store.root / ".manager").mkdir(exist_ok=True)
    (store.root / ".manager" / "usage").symlink_to(outside)
    write_log(sessions, "s1", str(project), [_read(store, key, "alpha")])
    from core.errors import StorageError

    with pytest.raises(StorageError):
        UsageLedger(store, sessions, quiet_seconds=0).update()
    note_served(store, key, ["alpha"], "memory_read", "c")  # never raises, never writes through the link
    assert list(outside.iterdir()) == []


_WORKER = textwrap.dedent(
    """
    import sys
    from core.store.fs import FileStore
    from core.usage import UsageLedger, note_served
    store = FileStore(sys.argv[1])
    ledger = UsageLedger(store, sys.argv[2], quiet_seconds=0)
    for i in range(int(sys.argv[4])):
        note_served(store, sys.argv[5], ["alpha"], "memory_read", sys.argv[3])
    print(ledger.update().sessions_read)
    """
)


def test_two_processes_updating_at_once_lose_nothing(env: Env) -> None:
    store, key, sessions, project = env
    for i in range(60):
        write_log(sessions, f"s{i:02d}", str(project), [_read(store, key, "alpha"), _read(store, key, "beta", 2)])
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(store.root), str(sessions), f"proc-{n}", "25", key],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    doc = json.loads((usage_dir(store) / "ledger.json").read_bytes())
    assert len(doc["index"]) == 60
    view = UsageLedger(store, sessions, quiet_seconds=0).view()
    alpha = view.get(key, "alpha")
    assert alpha is not None and alpha.counts == {"opened": 60, "served": 50}
    assert alpha.sessions["served"] == 2  # two clients
    assert view.get(key, "beta").counts == {"opened": 60}  # type: ignore[union-attr]


def test_mcp_reads_are_counted_with_the_client_name(env: Env) -> None:
    store, key, sessions, project = env
    agent = AgentSession(store, str(project), client="claude-code", connection="c1")
    assert "Alpha fact." in agent.read("alpha")
    agent.read("alpha")
    AgentSession(store, str(project), client="codex", connection="c2").read("beta")
    view = UsageLedger(store, sessions, quiet_seconds=0).view()
    alpha = view.get(key, "alpha")
    assert alpha is not None and alpha.counts == {"served": 2} and alpha.sessions == {"served": 1}
    assert {u.client for u in alpha.recent} == {"claude-code"} and alpha.recent[0].tool == "memory_read"
    beta = view.get(key, "beta")
    assert beta is not None and beta.recent[0].client == "codex" and beta.last_used is not None


def test_mcp_recall_and_search_count_the_records_they_served_but_an_index_does_not(env: Env) -> None:
    store, key, sessions, project = env
    agent = AgentSession(store, str(project), client="claude-code", connection="c1")
    assert "Alpha fact." in agent.recall("alpha")
    assert "alpha" in agent.search("alpha")
    agent.index_text()  # names every record, shows none of their text
    view = UsageLedger(store, sessions, quiet_seconds=0).view()
    alpha = view.get(key, "alpha")
    assert alpha is not None and alpha.counts == {"served": 2}
    assert sorted(u.tool for u in alpha.recent) == ["memory_recall", "memory_search"]
    assert view.get(key, "beta") is None  # listed by the index, never served


def test_the_served_log_stays_bounded(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    store, key, _, _ = env
    import core.usage.ledger as ledger_module

    monkeypatch.setattr(ledger_module, "MAX_SERVED_BYTES", 4096)
    for i in range(400):
        note_served(store, key, [f"record-{i}"], "memory_read", "c")
    size = (usage_dir(store) / "served.jsonl").stat().st_size
    assert size <= 4096
    names = [line["n"][0] for line in ledger_module.read_served(usage_dir(store))]
    assert names[-1] == "record-399" and "record-0" not in names


def test_a_purged_workspace_leaves_the_ledger_at_the_next_update(env: Env) -> None:
    store, key, sessions, project = env
    write_log(sessions, "s1", str(project), [_read(store, key, "alpha"), call(2, "read", {"file_path": "x"})])
    ledger = UsageLedger(store, sessions, quiet_seconds=0)
    ledger.update()
    note_served(store, key, ["beta"], "memory_read", "c")
    assert ledger.view().workspace(key).keys() == {"alpha", "beta"}
    info = store.recycle.archive(key)
    assert ledger.view().workspace(key)  # archived: still there (it can be restored)
    store.recycle.purge(key, info.display_name)
    ledger.update()
    assert ledger.view().workspace(key) == {}
    raw = (usage_dir(store) / "entries.jsonl").read_text() + (usage_dir(store) / "served.jsonl").read_text()
    assert "alpha" not in raw and "beta" not in raw  # (the session's own cwd stays: DSH's, not memory)
    ledger.update(rebuild=True)  # the log still names the file: a rebuild does not bring it back
    assert ledger.view().workspace(key) == {}


def test_entries_are_appended_then_compacted_and_a_torn_line_is_ignored(env: Env) -> None:
    store, key, sessions, project = env
    ledger = UsageLedger(store, sessions, quiet_seconds=0)
    for i in range(80):  # one session rewritten 80 times: 80 appended lines, compacted on the way
        write_log(sessions, "s1", str(project), [_read(store, key, "alpha", 1 + i)], mtime=1_700_000_000 + i)
        ledger.update()
    entries = usage_dir(store) / "entries.jsonl"
    assert len(entries.read_bytes().splitlines()) <= 2 * 1 + 64 + 1
    with open(entries, "ab") as handle:
        handle.write(b'{"f":"' + str(sessions).encode() + b'/--proj--/s1","rev":"x","uses":[[')  # torn
    usage = ledger.view().get(key, "alpha")
    assert usage is not None and usage.counts == {"opened": 1} and usage.recent[0].seq == 80
