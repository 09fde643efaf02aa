"""The CLI end to end in a child process, over a sessions root built by the session-log builders.

Plain v0 JSONL, a multi-frame zstd generation file (v3 shape, torn final frame), a v4 session with no
cwd (Unassigned) and a sub-agent session: ``sessions --all``, ``consolidate`` (dry run prints unified
diffs and writes nothing; ``--apply`` commits), the idempotent re-run, and ``reviews``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sessions"))
from dsh_log_builders import conversation, write_session, zstd_frames

from core.keys import workspace_key

REPO = Path(__file__).resolve().parents[3]
PAST = 1_700_000_000


def _age(folder: Path) -> None:
    for path in folder.iterdir():
        os.utime(path, (PAST, PAST))


@pytest.fixture
def roots(tmp_path: Path, dsh_home: Path) -> dict[str, Path]:
    project = tmp_path / "projects" / "shop"
    sessions = tmp_path / "sessions"
    _age(write_session(sessions, conversation(0, turns=2, session_id="v0-plain", cwd=str(project)), slug="--shop--"))
    # A multi-frame zstd generation file whose last frame was torn by a crash mid-append.
    rows = conversation(3, turns=3, session_id="v3-zstd", cwd=str(project))
    folder = write_session(sessions, rows, slug="--shop--", name="session.v3.jsonl.zstd", frames=5)
    with open(folder / "session.v3.jsonl.zstd", "ab") as log:
        log.write(zstd_frames(b'{"type":"user/message","seq":99}\n', frames=1)[:-7])
    (folder / "session.jsonl").write_bytes(b"")  # an older generation: ignored
    _age(folder)
    _age(write_session(sessions, conversation(4, turns=1, session_id="v4-nocwd", cwd=None), slug="--none--"))
    child = conversation(1, turns=1, session_id="child-1", cwd=str(project), origin="subagent", depth=1)
    _age(write_session(sessions, child, slug="--shop--"))
    return {"root": tmp_path / "memory", "sessions": sessions, "project": project}


def cli(roots: dict[str, Path], *args: str, json_out: bool = False) -> tuple[int, Any, str]:
    argv = [sys.executable, "-m", "core.cli.main", "--root", str(roots["root"])]
    argv += ["--json"] if json_out else []
    argv += list(args)
    if args[0] in ("sessions", "consolidate"):
        argv += ["--sessions-root", str(roots["sessions"])]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=60, env=dict(os.environ))
    out: Any = json.loads(done.stdout) if json_out else done.stdout
    return done.returncode, out, done.stderr


@pytest.mark.slow  # nine child processes: about 6 s on a loaded machine
def test_cli_end_to_end(roots: dict[str, Path]) -> None:
    code, data, err = cli(roots, "sessions", "--all", json_out=True)
    assert code == 0, err
    rows = {row["id"]: row for row in data["sessions"]}
    assert sorted(rows) == ["v0-plain", "v3-zstd", "v4-nocwd"]  # the sub-agent is hidden
    assert rows["v3-zstd"]["turns"] == 3 and rows["v0-plain"]["turns"] == 2
    assert rows["v4-nocwd"]["cwd"] is None and rows["v4-nocwd"]["workspace_key"] is None
    assert all(row["stable"] for row in rows.values())
    code, data, _ = cli(roots, "sessions", "--all", "--include-subagents", json_out=True)
    assert "child-1" in {row["id"] for row in data["sessions"]}

    # Dry run: unified diffs on stdout, nothing written.
    code, out, err = cli(roots, "consolidate", "v3-zstd", "--consolidator", "offline")
    assert code == 0, err
    assert "--- /dev/null\n+++ b/tabs.md\n@@ " in out and "+I prefer tabs." in out
    assert "Dry run: nothing was written" in out
    assert not (roots["root"] / "workspaces").exists()

    # --apply commits.
    code, data, err = cli(roots, "consolidate", "v3-zstd", "--consolidator", "offline", "--apply", json_out=True)
    assert code == 0, err
    assert data["status"] == "committed" and data["receipt"]["session_id"] == "v3-zstd"
    record = roots["root"] / "workspaces" / workspace_key(str(roots["project"])) / "tabs.md"
    assert "I prefer tabs." in record.read_text(encoding="utf-8")
    assert (roots["root"] / "reviews" / f"{data['review_id']}.md").is_file()

    # The same review again: the receipt, no new run.
    code, out, _ = cli(roots, "consolidate", "v3-zstd", "--consolidator", "offline", "--apply")
    assert code == 0 and "already consolidated" in out and "committed" in out

    # Another session saying the same thing: already known, nothing to commit.
    code, data, _ = cli(roots, "consolidate", "v0-plain", "--consolidator", "offline", "--apply", json_out=True)
    assert code == 0 and data["status"] == "no-change"

    # A session without a cwd belongs to no workspace.
    code, data, _ = cli(roots, "consolidate", "v4-nocwd", "--consolidator", "offline", json_out=True)
    assert code == 3 and data["error"]["code"] == "refused" and "no working directory" in data["error"]["message"]

    code, data, _ = cli(roots, "reviews", json_out=True)
    assert sorted(r["status"] for r in data["reviews"]) == ["committed", "no-change"]
    code, out, _ = cli(roots, "reviews")
    assert code == 0 and "committed" in out and "session v3-zstd" in out
