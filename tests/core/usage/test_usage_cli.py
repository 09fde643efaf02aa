"""``dsh-memory usage``: update and print, one workspace or all, JSON, rebuild."""

from __future__ import annotations

import io
import json
from pathlib import Path

from core.cli.main import main
from tests.core.usage.usage_logs import call, make_store, write_log


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), stdout=out, stderr=out)
    return code, out.getvalue()


def test_usage_prints_a_workspace_and_rebuilds(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    store, key = make_store(tmp_path / "memory", str(project), {"alpha": "Alpha.", "beta": "Beta."})
    sessions = tmp_path / "sessions"
    write_log(sessions, "s1", str(project), [call(1, "read", {"file_path": f"{store.root}/workspaces/{key}/alpha.md"}),
                                           call(2, "mystery_tool", {"x": 1})])  # fmt: skip
    base = ("--root", str(store.root))
    code, text = _run(*base, "usage", "--cwd", str(project), "--sessions-root", str(sessions))
    assert code == 0
    assert "1 session(s) read" in text and "alpha" in text and "opened 1" in text
    code, text = _run(*base, "--json", "usage", "--all", "--sessions-root", str(sessions))
    doc = json.loads(text)
    assert doc["update"]["sessions_read"] == 0 and doc["update"]["sessions_unchanged"] == 1
    assert [(r["workspace"], r["name"], r["counts"]) for r in doc["records"]] == [(key, "alpha", {"opened": 1})]
    assert doc["records"][0]["recent"][0]["session"] == "s1"
    code, text = _run(*base, "--json", "usage", "--rebuild", "--all", "--sessions-root", str(sessions))
    assert json.loads(text)["update"]["sessions_read"] == 1
