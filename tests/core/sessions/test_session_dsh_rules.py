"""DSH's real rules: resume markers vs fork cuts, format versions, generation names, peer messages.

Every log here is built by the test (``dsh_log_builders``) in the shape the rule is about.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from dsh_log_builders import (
    assistant,
    conversation,
    end_seed,
    exchange,
    fork,
    header,
    peer_message,
    resumed,
    user,
    write_session,
)

from core.errors import SessionReadError
from core.sessions import (
    SessionCatalog,
    build_evidence,
    live_session_protection,
    lock_state,
    read_session_folder,
    render_evidence,
)
from core.sessions.files import find_session_file, log_generation
from core.sessions.parse import ParsedSession


def _read(tmp_path: Path, rows: list[dict[str, object]], name: str = "session.jsonl") -> ParsedSession:
    return read_session_folder(write_session(tmp_path, rows, folder=str(rows[0]["id"]), name=name))


def _texts(parsed: ParsedSession) -> list[str]:
    return [m.text for t in build_evidence(parsed).turns for m in t.messages]


# ------------------------------------------------------------------ resume markers are not cuts


@pytest.mark.parametrize("version", [0, 1, 3, 4])
def test_a_resumed_session_keeps_every_turn(tmp_path: Path, version: int) -> None:
    parsed = _read(tmp_path, resumed(version, resumes=2))
    assert parsed.summary.turns == 3
    assert parsed.summary.inherited_cut == 0
    texts = _texts(parsed)
    assert texts[0] == "Remember the workspace instruction."  # the words before the resume
    assert "After resume 2: carry on." in texts
    assert parsed.summary.warnings == ()


def test_an_untagged_marker_never_cuts_even_in_a_seeded_v3_session(tmp_path: Path) -> None:
    rows = [
        header("s", 3, isSeeded=True),
        *exchange(0, "first", "one", 3),
        end_seed(2),
        *exchange(3, "second", "two", 3),
    ]
    parsed = _read(tmp_path, rows)
    assert parsed.summary.turns == 2 and parsed.summary.inherited_cut == 0
    assert any("no inherited marker" in w for w in parsed.summary.warnings)


def test_v1_plus_ignores_seed_length_and_needs_is_seeded(tmp_path: Path) -> None:
    # seedLength is the v0 rule only; an inherited marker without isSeeded: true cuts nothing.
    rows = [header("s", 2, seedLength=2), *exchange(0, "first", "one", 2), end_seed(2, inherited=True)]
    rows += exchange(3, "second", "two", 2)
    parsed = _read(tmp_path, rows)
    assert parsed.summary.turns == 2 and parsed.summary.inherited_cut == 0


def test_v0_cut_is_seed_length_only(tmp_path: Path) -> None:
    # a v0 log with an inherited-looking marker but no seedLength: nothing is inherited
    rows = [header("s", 0), *exchange(0, "first", "one"), end_seed(2, inherited=True), *exchange(3, "second", "two")]
    assert _read(tmp_path, rows).summary.turns == 2


# ------------------------------------------------------------------ forks


@pytest.mark.parametrize("version", [0, 3])
def test_a_seeded_fork_keeps_only_its_own_turns(tmp_path: Path, version: int) -> None:
    parent = [header("parent", version), *exchange(0, "parent prompt", "parent answer", version)]
    child = fork(parent, [("child task", "child answer")], version)
    parsed = _read(tmp_path, child)
    assert parsed.summary.turns == 1
    assert parsed.summary.title == "child task"
    assert _texts(parsed) == ["child task", "child answer"]
    assert parsed.summary.inherited_cut == (2 if version == 0 else 3)


@pytest.mark.parametrize("version", [0, 3])
def test_a_fork_of_a_fork_keeps_only_the_last_generation(tmp_path: Path, version: int) -> None:
    grandparent = [header("gp", version), *exchange(0, "grandparent prompt", "gp answer", version)]
    parent = fork(grandparent, [("parent prompt", "parent answer")], version, session_id="parent")
    child = fork(parent, [("child prompt", "child answer"), ("child again", "again")], version)
    parsed = _read(tmp_path, child)
    assert _texts(parsed) == ["child prompt", "child answer", "child again", "again"]
    assert parsed.summary.turns == 2


@pytest.mark.parametrize("version", [0, 3])
def test_a_fork_of_a_resumed_parent_that_is_resumed_itself(tmp_path: Path, version: int) -> None:
    parent = resumed(version, session_id="parent", resumes=2)
    child = fork(parent, [("child one", "a1"), ("child two", "a2")], version, resume_after=True)
    parsed = _read(tmp_path, child)
    assert _texts(parsed) == ["child one", "a1", "child two", "a2"]  # the child's resume cut nothing
    assert parsed.summary.turns == 2


def test_the_real_v0_fork_shape_still_reads(tmp_path: Path) -> None:
    rows = [
        header("child", origin="subagent", depth=1, seedLength=2),
        user(0, "parent's prompt"),
        assistant(1, "parent's answer", version=1),
        end_seed(2),
        user(3, "child task"),
        assistant(4, "child answer", version=1),
    ]
    assert _texts(_read(tmp_path, rows)) == ["child task", "child answer"]


# ------------------------------------------------------------------ versions


def test_a_newer_format_is_read_best_effort_with_a_warning(tmp_path: Path) -> None:
    rows = conversation(version=5, turns=2, session_id="v5")
    catalog = SessionCatalog(tmp_path)
    write_session(tmp_path, rows, folder="v5", name="session.v5.jsonl")
    summary = catalog.list()[0]
    assert summary.format_version == 5 and summary.turns == 2
    assert summary.warnings == ("written by a newer DSH (format v5): shown as far as it can be read",)
    parsed = catalog.load(summary)
    assert parsed.summary == summary
    assert "Answer 2: noted." in _texts(parsed)


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_known_formats_have_no_version_warning(tmp_path: Path, version: int) -> None:
    parsed = _read(tmp_path, conversation(version=version, turns=1, session_id=f"k{version}"))
    assert parsed.summary.format_version == version and parsed.summary.warnings == ()


# ------------------------------------------------------------------ generation file names


@pytest.mark.parametrize(
    "name",
    [
        "session.v0.jsonl",
        "session.v0.jsonl.zstd",
        "session.v03.jsonl",
        "session.V3.jsonl",
        "SESSION.jsonl",
        "Session.v3.jsonl",
        "session.v3.JSONL",
        "session.v3.jsonl.tmp",
        ".session.v3.jsonl.swp",
        "session.v3.jsonl.zst",
        "session.v-3.jsonl",
        "session.v3.jsonl.zstd.partial",
        "session.jsonl~",
    ],
)
def test_non_canonical_names_are_ignored(tmp_path: Path, name: str) -> None:
    assert log_generation(name) is None
    folder = write_session(tmp_path, conversation(turns=1, session_id="g"), folder="g")
    (folder / name).write_bytes(b'{"type":"session","version":3,"id":"g"}\n')
    found = find_session_file(folder)
    assert found is not None and found.path.name == "session.jsonl" and found.warnings == ()


def test_only_bad_names_means_no_session(tmp_path: Path) -> None:
    folder = tmp_path / "--p--" / "x"
    folder.mkdir(parents=True)
    (folder / "session.v0.jsonl").write_bytes(b'{"type":"session","version":0,"id":"x"}\n')
    assert find_session_file(folder) is None
    assert SessionCatalog(tmp_path).list() == []


def test_highest_version_wins_across_plain_and_compressed_never_by_mtime(tmp_path: Path) -> None:
    folder = write_session(tmp_path, conversation(2, turns=2, session_id="g"), folder="g", name="session.v2.jsonl.zstd")
    write_session(tmp_path, conversation(3, turns=3, session_id="g"), folder="g", name="session.v3.jsonl")
    os.utime(folder / "session.v3.jsonl", (1_000_000, 1_000_000))  # much older on disk
    parsed = read_session_folder(folder)
    assert parsed.summary.format_version == 3 and parsed.summary.turns == 3
    write_session(tmp_path, conversation(4, turns=4, session_id="g"), folder="g", name="session.v4.jsonl.zstd")
    os.utime(folder / "session.v4.jsonl.zstd", (1_000_000, 1_000_000))
    assert read_session_folder(folder).summary.turns == 4


def test_a_header_that_disagrees_with_its_name_is_skipped_with_a_warning(tmp_path: Path) -> None:
    folder = write_session(tmp_path, resumed(0, session_id="m"), folder="m")
    write_session(tmp_path, conversation(2, turns=5, session_id="m"), folder="m", name="session.v3.jsonl.zstd")
    catalog = SessionCatalog(tmp_path)
    [summary] = catalog.list()
    assert summary.revision.path.endswith("/session.jsonl")  # fell back to the older generation
    assert summary.format_version == 0 and summary.turns == 2
    assert summary.warnings == (
        "session.v3.jsonl.zstd says format v2 in its header, which disagrees with its name; skipped it",
    )
    assert catalog.load(summary).summary == summary
    assert catalog.is_stable(summary, quiet_seconds=0)[0]
    # once the bad file is gone the warning goes too (the cached summary is not reused)
    (folder / "session.v3.jsonl.zstd").unlink()
    assert catalog.list()[0].warnings == ()


def test_header_versions_are_remembered_by_the_catalog_that_read_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Choosing a folder's log reads a generation file's header once per catalog, not once per listing;
    the memory is the catalog's own (a second catalog reads again: nothing is process-wide)."""
    import core.sessions.files as files

    write_session(tmp_path, resumed(0, session_id="m"), folder="m")
    write_session(tmp_path, conversation(2, turns=5, session_id="m"), folder="m", name="session.v3.jsonl.zstd")
    reads: list[str] = []
    real = files.header_version_of
    monkeypatch.setattr(files, "header_version_of", lambda path, c: reads.append(path.name) or real(path, c))
    first = SessionCatalog(tmp_path)
    for _ in range(3):
        [summary] = first.list()
        assert summary.format_version == 0  # the v3 file's header says v2: passed over every time
    first.load(summary)
    assert reads == ["session.v3.jsonl.zstd"]
    [again] = SessionCatalog(tmp_path).list()
    assert again.warnings == summary.warnings and reads == ["session.v3.jsonl.zstd"] * 2


def test_a_folder_whose_only_log_disagrees_with_its_name_is_reported(tmp_path: Path) -> None:
    folder = write_session(tmp_path, conversation(1, turns=1, session_id="m"), folder="m", name="session.v2.jsonl")
    catalog = SessionCatalog(tmp_path)
    assert catalog.list() == []
    [(where, why)] = catalog.problems.items()
    assert where == str(folder) and "says format v1" in why
    with pytest.raises(SessionReadError) as caught:
        read_session_folder(folder)
    assert caught.value.reason == "unusable"


def test_a_generation_file_without_a_header_is_skipped(tmp_path: Path) -> None:
    folder = write_session(tmp_path, conversation(turns=1, session_id="h"), folder="h")
    (folder / "session.v1.jsonl").write_bytes(b"not json at all\n")
    summary = read_session_folder(folder).summary
    assert summary.turns == 1
    assert summary.warnings == ("session.v1.jsonl has no readable header, which disagrees with its name; skipped it",)


# ------------------------------------------------------------------ assistant text


def test_peer_messages_are_assistant_text(tmp_path: Path) -> None:
    rows = [header("p", 4), user(0, "/planning split the delivery", 4), peer_message(1, "专家回答: three waves.")]
    rows += [event_row for event_row in exchange(2, "thanks", "welcome", 4)]
    parsed = _read(tmp_path, rows, name="session.v4.jsonl")
    evidence = build_evidence(parsed)
    assert [(m.role, m.text) for m in evidence.turns[0].messages] == [
        ("user", "/planning split the delivery"),
        ("assistant", "专家回答: three waves."),
    ]
    assert "[seq 1] assistant:\n专家回答: three waves." in render_evidence(evidence)


def test_other_assistant_shaped_events_are_read_and_unknown_ones_skipped(tmp_path: Path) -> None:
    from dsh_log_builders import event

    shaped = {"message": {"role": "assistant", "content": [{"type": "text", "text": "a note from the model"}]}}
    rows = [
        header("o", 4),
        user(0, "go", 4),
        event(1, "assistant/summary-note", shaped),
        event(2, "assistant/reasoning-summary", shaped),  # reasoning: private, skipped
        event(3, "future/thing", {"text": "not a message"}),
        event(4, "user/message", {"message": {"role": "assistant", "content": "odd", "source": {"kind": "plugin"}}}),
    ]
    assert _texts(_read(tmp_path, rows, name="session.v4.jsonl")) == ["go", "a note from the model"]


# ------------------------------------------------------------------ live sessions


def test_windows_has_only_the_quiet_period() -> None:
    windows = live_session_protection(60, platform="win32")
    assert not windows.lock_checked
    assert "no session lock" in windows.note and "60 s" in windows.note
    assert live_session_protection(platform="linux") == live_session_protection(platform="darwin")
    assert live_session_protection(platform="linux").lock_checked


_HOLDER = r"""
import fcntl, sys
handle = open(sys.argv[1], "r+")
fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
print("locked", flush=True)
sys.stdin.read()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or not Path("/proc/locks").exists(), reason="Linux only")
def test_on_linux_the_probe_takes_no_lock_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import fcntl

    def forbidden(*args: object) -> None:
        raise AssertionError("the probe must not take a lock on Linux")

    monkeypatch.setattr(fcntl, "flock", forbidden)
    monkeypatch.setattr(fcntl, "fcntl", forbidden)
    folder = write_session(tmp_path, conversation(turns=1))
    lock = folder / "session.lock"
    lock.write_text("")
    assert lock_state(folder) is None
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        assert lock_state(folder) == "DSH holds session.lock (the session is open)"
    finally:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.wait(timeout=30)
        proc.stdout.close()
    assert lock_state(folder) is None


def test_the_script_reads_one_built_log_per_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    repo = Path(__file__).resolve().parents[3]
    spec = importlib.util.spec_from_file_location("try_real_sessions", repo / "scripts" / "try_real_sessions.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    script.build_rule_logs(tmp_path / "rules")
    report = script.run(tmp_path / "rules")
    lines = {line.split(":", 1)[0]: line for line in capsys.readouterr().out.splitlines() if "human_turns=" in line}
    assert report["files"] == 10 and report["unreadable"] == 0 and report["summary_mismatches"] == 0
    assert "v0 human_turns=2 assistant_texts=2 inherited_cut=- warnings=-" in lines["resumed-v0"]
    assert "v3 human_turns=3 assistant_texts=3 inherited_cut=-" in lines["resumed-v3"]
    assert "human_turns=1 assistant_texts=1 inherited_cut=seq 3" in lines["seeded-fork-v3"]
    assert "human_turns=1 assistant_texts=1 inherited_cut=seq 6" in lines["fork-of-fork-v3"]
    assert "human_turns=2 assistant_texts=2 inherited_cut=seq 9" in lines["fork-of-resumed-v3"]
    assert "v5 " in lines["v5-header"] and "written by a newer DSH (format v5)" in lines["v5-header"]
    assert "says format v2 in its header" in lines["mismatch"] and "v0 human_turns=2" in lines["mismatch"]
    assert "warnings=-" in lines["bad-names"] and "human_turns=2 assistant_texts=2" in lines["peer-v4"]
