"""``dsh-memory search`` and ``dsh-memory recall`` through the real CLI entry point."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from search_support import put, rec

from core.cli.main import main
from core.search.recall import BEGIN, END
from core.store.fs import FileStore

CWD = "/home/me/proj"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    store = FileStore(root)
    store.replace_global("## Tips\nUse pnpm, 打包用 electron-builder.\n", None)
    put(store, CWD, [rec("packaging", "打包用了 electron-builder。"), rec("style", "Use ruff.")])
    put(store, "/home/me/other", [rec("elsewhere", "electron-builder elsewhere")])
    return root


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def run_json(*argv: str) -> Any:
    code, out, err = run(*argv)
    assert code == 0, err + out
    return json.loads(out)


def test_search_json_in_one_workspace(root: Path) -> None:
    data = run_json("--root", str(root), "search", "electron", "--cwd", CWD, "--json")
    found = sorted((h["kind"], h["name"]) for h in data["hits"])
    assert found == [("global_section", "Tips"), ("record", "packaging")]
    assert data["total_matches"] == 2
    hit = next(h for h in data["hits"] if h["kind"] == "record")
    assert hit["cwd"] == CWD and hit["snippet"]
    start, end = hit["highlights"][0]
    assert hit["snippet"][start:end].lower() == "electron"


def test_search_all_and_limit(root: Path) -> None:
    data = run_json("--root", str(root), "--json", "search", "electron", "--all")
    assert {h["name"] for h in data["hits"]} == {"packaging", "Tips", "elsewhere"}
    data = run_json("--root", str(root), "--json", "search", "electron", "--all", "--limit", "1")
    assert len(data["hits"]) == 1 and data["truncated"] is True


def test_search_text_output(root: Path) -> None:
    code, out, _ = run("--root", str(root), "search", "打包为什么慢", "--cwd", CWD)
    assert code == 0
    assert "packaging [project]" in out and "GLOBAL.md § Tips" in out
    code, out, _ = run("--root", str(root), "search", "nonexistentword", "--cwd", CWD)
    assert code == 0 and "No memory in" in out and "matches" in out


def test_search_usage_errors(root: Path) -> None:
    code, out, _ = run("--root", str(root), "--json", "search", "x", "--cwd", CWD, "--all")
    assert code == 2 and json.loads(out)["error"]["code"] == "usage"
    code, _, _ = run("--root", str(root), "search", "x", "--limit", "0")
    assert code == 2


def test_recall_text_and_json(root: Path) -> None:
    code, out, _ = run("--root", str(root), "recall", "--cwd", CWD, "打包")
    assert code == 0
    assert out.startswith(BEGIN) and out.rstrip("\n").endswith(END)
    assert "### packaging" in out and "elsewhere" not in out
    data = run_json("--root", str(root), "recall", "--cwd", CWD, "打包", "--json", "--max-bytes", "2000")
    assert data["text"] == out
    assert [r["name"] for r in data["records"]] == ["packaging"]
    assert data["bytes"] <= 2000
