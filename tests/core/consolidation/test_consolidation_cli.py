"""``dsh-memory sessions | consolidate | reviews`` end to end on files in tmp_path."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from consolidation_support import CWD, write_dsh_session

from core.cli.main import main
from core.keys import workspace_key


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def env(tmp_path: Path, dsh_home: Path) -> dict[str, Any]:
    sessions = tmp_path / "sessions"
    write_dsh_session(
        sessions,
        "sess-cli",
        CWD,
        [("Please remember that releases happen on Tuesdays.", "Noted."), ("Fix the build.", "Done.")],
        title="Release day",
    )
    write_dsh_session(sessions, "sess-other", "/home/ada/projects/other", [("Hello.", "Hi.")], title="Other")
    return {"root": str(tmp_path / "memory"), "sessions": str(sessions), "memory": tmp_path / "memory"}


def test_sessions_lists_one_workspace_or_all(env: dict[str, Any]) -> None:
    code, out, _ = run("--root", env["root"], "sessions", "--cwd", CWD, "--sessions-root", env["sessions"])
    assert code == 0 and "sess-cli" in out and "Release day" in out and "sess-other" not in out
    assert "stable" in out
    code, out, _ = run("--root", env["root"], "--json", "sessions", "--all", "--sessions-root", env["sessions"])
    data = json.loads(out)
    assert code == 0 and sorted(s["id"] for s in data["sessions"]) == ["sess-cli", "sess-other"]
    assert all(s["last_review"] is None for s in data["sessions"])


def test_consolidate_dry_run_then_apply_then_rerun(env: dict[str, Any]) -> None:
    base = ("--root", env["root"], "consolidate", "sess-cli", "--consolidator", "offline", "--sessions-root")
    code, out, err = run(*base, env["sessions"])
    assert code == 0, err
    assert "+++ b/releases-happen-tuesdays.md" in out and "+Releases happen on Tuesdays." in out
    assert "Dry run: nothing was written" in out
    assert not (env["memory"] / "workspaces").exists()

    code, out, err = run(*base, env["sessions"], "--apply")
    assert code == 0, err
    assert "committed" in out
    record = env["memory"] / "workspaces" / workspace_key(CWD) / "releases-happen-tuesdays.md"
    assert record.is_file()

    code, out, _ = run(*base, env["sessions"])
    assert code == 0 and "already consolidated" in out and "committed" in out

    code, out, _ = run("--root", env["root"], "--json", "reviews")
    [receipt] = json.loads(out)["reviews"]
    assert receipt["status"] == "committed" and receipt["session_id"] == "sess-cli"
    code, out, _ = run("--root", env["root"], "--json", "sessions", "--cwd", CWD, "--sessions-root", env["sessions"])
    assert json.loads(out)["sessions"][0]["last_review"]["status"] == "committed"


def test_consolidate_json_and_errors(env: dict[str, Any]) -> None:
    code, out, _ = run(
        "--root",
        env["root"],
        "--json",
        "consolidate",
        "sess-cli",
        "--consolidator",
        "offline",
        "--sessions-root",
        env["sessions"],
    )
    data = json.loads(out)
    assert code == 0 and data["status"] == "proposed" and data["changes"][0]["kind"] == "put"
    code, out, _ = run("--root", env["root"], "--json", "consolidate", "nope", "--sessions-root", env["sessions"])
    assert code == 4 and json.loads(out)["error"]["code"] == "not_found"
    code, _, err = run(
        "--root",
        env["root"],
        "consolidate",
        "sess-cli",
        "--consolidator",
        "model",
        "--sessions-root",
        env["sessions"],
    )
    assert code == 13 and "DEEPSEEK_API_KEY is not set" in err


def test_reviews_when_there_are_none(env: dict[str, Any]) -> None:
    code, out, _ = run("--root", env["root"], "reviews")
    assert code == 0 and "No consolidation receipts" in out


def test_sessions_reports_unreadable_folders(env: dict[str, Any]) -> None:
    broken = Path(env["sessions"]) / "--x--" / "broken"
    broken.mkdir(parents=True)
    (broken / "session.jsonl").write_bytes(b"not a header\n")
    code, out, _ = run("--root", env["root"], "--json", "sessions", "--all", "--sessions-root", env["sessions"])
    data = json.loads(out)
    assert code == 0 and len(data["sessions"]) == 2
    assert (
        list(data["unreadable"]) == [str(broken)]
        and "not a readable DSH session log" in data["unreadable"][str(broken)]
    )
    code, out, _ = run("--root", env["root"], "sessions", "--all", "--sessions-root", env["sessions"])
    assert "1 session folder(s) could not be read" in out and str(broken) in out


def test_sessions_show_the_format_version_and_reader_warnings(env: dict[str, Any]) -> None:
    import os
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sessions"))
    from dsh_log_builders import conversation, write_session

    folder = write_session(
        Path(env["sessions"]), conversation(5, turns=2, session_id="sess-v5", cwd=CWD), name="session.v5.jsonl"
    )
    os.utime(folder / "session.v5.jsonl", (1_700_000_000, 1_700_000_000))
    code, out, _ = run("--root", env["root"], "--json", "sessions", "--cwd", CWD, "--sessions-root", env["sessions"])
    rows = {s["id"]: s for s in json.loads(out)["sessions"]}
    assert code == 0 and rows["sess-v5"]["format_version"] == 5 and rows["sess-cli"]["format_version"] == 1
    warning = "written by a newer DSH (format v5): shown as far as it can be read"
    assert rows["sess-v5"]["warnings"] == [warning] and rows["sess-cli"]["warnings"] == []
    assert json.loads(out)["live_check"]["lock_checked"] is (sys.platform != "win32")
    code, out, _ = run("--root", env["root"], "sessions", "--cwd", CWD, "--sessions-root", env["sessions"])
    line = next(line for line in out.splitlines() if line.startswith("sess-v5"))
    assert " v5 " in line and f"    warning: {warning}" in out
    assert " v1 " in next(line for line in out.splitlines() if line.startswith("sess-cli"))


def test_pending_reviews_from_the_shell(env: dict[str, Any]) -> None:
    base = ("--root", env["root"], "consolidate", "sess-cli", "--consolidator", "offline", "--sessions-root")
    code, out, err = run(*base, env["sessions"])
    assert code == 0 and "Dry run" in out and "restored" not in out, err
    code, out, _ = run("--root", env["root"], "--json", "reviews", "--pending")
    data = json.loads(out)
    [pending] = data["pending"]
    assert code == 0 and pending["session_id"] == "sess-cli" and pending["status"] == "proposed"
    assert data["max_age_days"] == 30 and data["max_count"] == 50
    code, out, _ = run("--root", env["root"], "reviews", "--pending")
    assert pending["review_id"] in out and "1 change(s)" in out and "kept for 30 days" in out
    # a second run (a new process would do the same) shows the saved review, not a new proposal
    code, out, _ = run(*base, env["sessions"])
    assert code == 0 and f"Pending review {pending['review_id']} restored" in out
    assert "the consolidator was not run again" in out
    code, out, _ = run("--root", env["root"], "--json", "reviews", "--delete", pending["review_id"])
    assert code == 0 and json.loads(out)["receipt"]["status"] == "discarded"
    code, out, _ = run("--root", env["root"], "reviews", "--pending")
    assert "No pending session reviews." in out
    code, out, err = run("--root", env["root"], "--json", "reviews", "--delete", pending["review_id"])
    assert code == 3 and json.loads(out)["error"]["code"] == "refused"  # settled already: not a usage error
    code, out, _ = run(*base, env["sessions"], "--apply")
    assert code == 0 and "committed" in out and "restored" not in out
