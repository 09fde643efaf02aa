"""Each tool shape DSH logs, run through a real ledger over logs written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.store.fs import FileStore
from core.usage import UsageLedger, UsageView
from tests.core.usage.usage_logs import call, dispatch, injected, make_store, prompt, result, write_log

Env = tuple[FileStore, str, Path, Path]
RECORDS = {
    "deploy-steps": "Deploy with `make release`; the staging token lives in the vault.",
    "code-style": "Use tabs in Go files and four spaces in Python.",
    "db-notes": "Postgres 16; migrations in db/migrations.",
}


@pytest.fixture
def env(tmp_path: Path) -> tuple[FileStore, str, Path, Path]:
    project = tmp_path / "proj"
    project.mkdir()
    store, key = make_store(tmp_path / "memory", str(project), RECORDS)
    return store, key, tmp_path / "sessions", project


def _run(store: FileStore, sessions: Path) -> tuple[UsageView, UsageLedger]:
    ledger = UsageLedger(store, sessions, quiet_seconds=0)
    ledger.update()
    return ledger.view(), ledger


def _kinds(view: UsageView, key: str, name: str) -> dict[str, int]:
    usage = view.get(key, name)
    return dict(usage.counts) if usage is not None else {}


def test_read_with_an_absolute_path_is_opened(env: Env) -> None:
    store, key, sessions, project = env
    ws = store.root / "workspaces" / key
    write_log(
        sessions,
        "s1",
        str(project),
        [
            prompt(1, "deploy?"),
            call(2, "read", {"file_path": f"{ws}/deploy-steps.md"}),
            result(3, "Deploy with make release"),
        ],
    )
    view, _ = _run(store, sessions)
    assert _kinds(view, key, "deploy-steps") == {"opened": 1}
    usage = view.get(key, "deploy-steps")
    assert usage is not None and usage.recent[0].session == "s1" and usage.recent[0].seq == 2
    assert usage.recent[0].tool == "read" and usage.last_used is not None
    assert view.get(key, "code-style") is None


def test_grep_over_the_workspace_folder_matches_only_records_whose_text_matches(
    env: Env,
) -> None:
    store, key, sessions, project = env
    ws = store.root / "workspaces" / key
    write_log(
        sessions, "s1", str(project), [call(1, "grep", {"pattern": "POSTGRES|tabs", "path": str(ws), "-i": True})]
    )
    view, _ = _run(store, sessions)
    assert _kinds(view, key, "db-notes") == {"matched": 1}
    assert _kinds(view, key, "code-style") == {"matched": 1}
    assert view.get(key, "deploy-steps") is None  # searched, but the pattern is not in it


def test_glob_lists_the_records_its_pattern_names(env: Env) -> None:
    store, key, sessions, project = env
    ws = store.root / "workspaces" / key
    write_log(sessions, "s1", str(project), [call(1, "glob", {"pattern": "d*.md", "path": str(ws)})])
    view, _ = _run(store, sessions)
    assert _kinds(view, key, "deploy-steps") == {"listed": 1}
    assert _kinds(view, key, "db-notes") == {"listed": 1}
    assert view.get(key, "code-style") is None
    usage = view.get(key, "deploy-steps")
    assert usage is not None and usage.last_used is None  # listed is not "used"


def test_bash_cat_and_rg_in_one_command_line(env: Env) -> None:
    store, key, sessions, project = env
    root = store.root
    command = (
        f"cd {root} && cat workspaces/{key}/code-style.md | head -n 5; "
        f"rg -i 'MAKE RELEASE' workspaces/{key} 2>/dev/null"
    )
    write_log(sessions, "s1", str(project), [call(1, "bash", {"command": command, "description": "look"})])
    view, _ = _run(store, sessions)
    assert _kinds(view, key, "code-style") == {"opened": 1}
    assert _kinds(view, key, "deploy-steps") == {"matched": 1}
    assert view.get(key, "db-notes") is None


def test_pwsh_get_content_is_opened(env: Env) -> None:
    store, _, sessions, project = env
    path = store.root / "GLOBAL.md"
    write_log(sessions, "s1", str(project), [call(1, "pwsh", {"command": f"Get-Content -Path '{path}'"})])
    view, _ = _run(store, sessions)
    assert _kinds(view, "", "GLOBAL.md") == {"opened": 1}


def test_code_dispatch_read_counts_once_not_through_run_code(env: Env) -> None:
    store, key, sessions, project = env
    ws = store.root / "workspaces" / key
    code = f"return await tools.read({{file_path: '{ws}/db-notes.md'}})"
    write_log(
        sessions,
        "s1",
        str(project),
        [call(1, "run_code", {"code": code}), dispatch(2, "read", {"file_path": f"{ws}/db-notes.md"})],
    )
    view, _ = _run(store, sessions)
    assert _kinds(view, key, "db-notes") == {"opened": 1}
    usage = view.get(key, "db-notes")
    assert usage is not None and usage.recent[0].seq == 2


def test_a_path_outside_the_root_is_not_memory(env: Env, tmp_path: Path) -> None:
    store, key, sessions, project = env
    elsewhere = tmp_path / "other" / "workspaces" / key
    elsewhere.mkdir(parents=True)
    (elsewhere / "deploy-steps.md").write_text("a copy")
    write_log(
        sessions,
        "s1",
        str(project),
        [
            call(1, "read", {"file_path": str(elsewhere / "deploy-steps.md")}),
            call(2, "read", {"file_path": f"{store.root}/../memory2/GLOBAL.md"}),
        ],
    )
    ledger = UsageLedger(store, sessions, quiet_seconds=0)
    stats = ledger.update()
    assert ledger.view().records == {}
    assert stats.sessions_read == 1 and stats.uses_found == 0


def test_a_relative_path_is_resolved_against_the_session_cwd(env: Env) -> None:
    store, key, sessions, _ = env
    ws = store.root / "workspaces" / key
    # The agent runs inside the workspace folder and names files relative to it.
    write_log(
        sessions,
        "s1",
        str(ws),
        [
            call(1, "read", {"file_path": "code-style.md"}),
            call(2, "str_replace_editor", {"command": "view", "path": "./db-notes.md"}),
        ],
    )
    # ...and from the project folder, "code-style.md" is not a memory file.
    write_log(sessions, "s2", str(store.root.parent / "proj"), [call(1, "read", {"file_path": "code-style.md"})])
    view, _ = _run(store, sessions)
    assert _kinds(view, key, "code-style") == {"opened": 1}
    assert _kinds(view, key, "db-notes") == {"opened": 1}


def test_an_unknown_tool_is_counted_as_unknown_not_guessed(env: Env) -> None:
    store, key, sessions, project = env
    ws = store.root / "workspaces" / key
    write_log(sessions, "s1", str(project), [call(1, "frobnicate", {"target": f"{ws}/deploy-steps.md"})])
    ledger = UsageLedger(store, sessions, quiet_seconds=0)
    stats = ledger.update()
    assert stats.unknown_tools == {"frobnicate": 1}
    usage = ledger.view().get(key, "deploy-steps")
    assert usage is not None and usage.counts == {"unknown": 1} and usage.used == 0


def test_an_agent_writing_a_record_is_edited(env: Env) -> None:
    store, key, sessions, project = env
    ws = store.root / "workspaces" / key
    write_log(
        sessions,
        "s1",
        str(project),
        [
            call(1, "edit", {"file_path": f"{ws}/code-style.md", "old_string": "a", "new_string": "b"}),
            call(2, "write", {"file_path": f"{ws}/new-note.md", "content": "x"}),
        ],
    )
    view, _ = _run(store, sessions)
    assert _kinds(view, key, "code-style") == {"edited": 1}
    assert _kinds(view, key, "new-note") == {"edited": 1}  # written directly, not (yet) through the store


def test_our_own_mcp_tools_are_not_counted_from_the_log(env: Env) -> None:
    store, key, sessions, project = env
    write_log(
        sessions,
        "s1",
        str(project),
        [
            call(1, "mcp__dsh-memory__memory_read", {"name": "deploy-steps"}),
            call(2, "mcp__fs__read_file", {"path": f"{store.root}/GLOBAL.md"}),
        ],
    )
    view, _ = _run(store, sessions)
    assert view.get(key, "deploy-steps") is None  # the server counts it (note_served), not the log
    assert _kinds(view, "", "GLOBAL.md") == {"opened": 1}


def test_injected_memory_is_loaded_once_per_session_and_reads_after_it_follow(
    env: Env,
) -> None:
    store, key, sessions, project = env
    ws = store.root / "workspaces" / key
    index = store.read_workspace(key).index_text
    start = injected(1, [("memory:global", "# User Preferences"), ("memory:workspace-index", index)])
    write_log(sessions, "s1", str(project), [start, call(2, "read", {"file_path": f"{ws}/db-notes.md"})])
    write_log(sessions, "s2", str(project), [start])
    view, _ = _run(store, sessions)
    assert _kinds(view, "", "GLOBAL.md") == {"loaded": 2}
    assert _kinds(view, key, "MEMORY.md") == {"loaded": 2}
    assert view.loads == {key: 2}
    usage = view.get(key, "db-notes")
    assert usage is not None and usage.followed == 1


def test_the_spaced_json_shape_and_zstd_logs_are_read_too(env: Env) -> None:
    store, key, sessions, project = env
    ws = store.root / "workspaces" / key
    write_log(sessions, "s1", str(project), [call(1, "read", {"file_path": f"{ws}/db-notes.md"})], compact=False)
    write_log(
        sessions,
        "s2",
        str(project),
        [call(1, "cat", {"path": f"{ws}/db-notes.md"}), call(2, "read", {"file_path": f"{ws}/code-style.md"})],
        zstd=True,
    )
    view, _ = _run(store, sessions)
    assert _kinds(view, key, "db-notes") == {"opened": 2}
    usage = view.get(key, "db-notes")
    assert usage is not None and usage.sessions == {"opened": 2}
    assert _kinds(view, key, "code-style") == {"opened": 1}


def test_inherited_history_of_a_fork_is_not_counted_again(env: Env) -> None:
    store, key, sessions, project = env
    ws = store.root / "workspaces" / key
    events = [
        call(1, "read", {"file_path": f"{ws}/db-notes.md"}),
        call(2, "read", {"file_path": f"{ws}/code-style.md"}),
    ]
    write_log(sessions, "fork", str(project), events, seedLength=2)  # v0: the first two events were copied
    view, _ = _run(store, sessions)
    assert view.get(key, "db-notes") is None  # seq 1 < cut... copied from the parent
    assert _kinds(view, key, "code-style") == {"opened": 1}


def test_injected_memory_in_the_v1_message_shape_is_loaded_too(env: Env) -> None:
    store, key, sessions, project = env
    index = store.read_workspace(key).index_text
    source = {"kind": "plugin", "plugin": "dsh-memory", "sections": [{"name": "memory:workspace-index", "text": index}]}
    message = {"role": "user", "source": source, "content": [{"type": "text", "text": index}]}
    start = {"type": "user/message", "seq": 1, "time": 1_785_000_001_000, "data": {"message": message}}
    write_log(sessions, "s1", str(project), [start], version=1)
    view, _ = _run(store, sessions)
    assert _kinds(view, key, "MEMORY.md") == {"loaded": 1}
