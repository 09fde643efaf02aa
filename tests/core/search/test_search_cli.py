"""``dsh-memory search`` and ``dsh-memory recall`` through the real CLI entry point."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from search_support import age_files, put, rec

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


def _fresh_process(code: str, tmp_path: Path) -> str:
    env = {**os.environ, "HOME": str(tmp_path / "home"), "DSH_HOME": str(tmp_path / "dsh")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return proc.stdout


def test_version_is_answered_before_any_import(tmp_path: Path) -> None:
    out = _fresh_process(
        "import sys; from gui.launcher import main; main(['--version']);"
        "print(sorted(m for m in ('core.cli.main', 'argparse', 'pydantic') if m in sys.modules))",
        tmp_path,
    )
    assert out.splitlines()[-1] == "[]"


def test_one_shot_search_over_a_persisted_index_does_not_open_the_store(root: Path, tmp_path: Path) -> None:
    """What an agent's shell tool pays for: an up-to-date persisted index is searched without
    importing the store, pydantic or any other command group, nor the standard modules that cost a
    one-shot search milliseconds of its start-up (dataclasses with inspect, typing, hashlib, ctypes,
    secrets, shutil; issue 24: faster than ``rg -i -l``)."""
    age_files(root)
    heavy = ("pydantic", "core.store.fs", "core.cli.store_commands", "markdown_it")
    heavy += ("dataclasses", "inspect", "typing", "hashlib", "ctypes", "secrets", "shutil")
    code = (
        "import sys; from gui.launcher import main;"
        "rc = main(['--root', sys.argv[1], 'search', 'electron', '--all']);"
        f"print(rc, sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    first = _fresh_process(code.replace("sys.argv[1]", repr(str(root))), tmp_path)
    assert "packaging" in first  # the first run builds (and persists) the index through the store
    again = _fresh_process(code.replace("sys.argv[1]", repr(str(root))), tmp_path)
    assert "packaging" in again and "elsewhere" in again
    assert again.splitlines()[-1] == "0 []"


def test_search_and_recall_run_as_the_program_answer_in_full(root: Path, tmp_path: Path) -> None:
    """``dsh-memory search``/``recall`` as a program (the path that skips the exit's garbage
    collection): the whole JSON document on stdout, exit code 0, and the same answer as in-process."""
    env = {**os.environ, "HOME": str(tmp_path / "home"), "DSH_HOME": str(tmp_path / "dsh")}
    for argv in (["search", "electron", "--all"], ["recall", "--cwd", CWD, "打包"]):
        args = ["--root", str(root), "--json", *argv]
        proc = subprocess.run([sys.executable, "-m", "gui.launcher", *args], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == run_json(*args)


def test_a_first_search_builds_in_the_foreground_with_progress_on_stderr(tmp_path: Path) -> None:
    """No persisted index yet: the search builds it before answering, says "indexing N %…" on
    stderr, and stdout is the JSON document alone; the next search builds nothing."""
    root = tmp_path / "memory"
    store = FileStore(root)
    for i in range(25):
        put(store, f"/w/{i}", [rec(f"r{i}", f"quokka {i}")])
    age_files(root)  # (written a while ago: the second search trusts what the first indexed)
    code, out, err = run("--root", str(root), "search", "quokka", "--all", "--json")
    assert code == 0
    assert json.loads(out)["total_matches"] == 25
    assert "indexing 0 %…" in err and "indexing 100 %…" in err
    code, out, err = run("--root", str(root), "search", "quokka", "--all", "--json")
    assert (code, json.loads(out)["total_matches"], err) == (0, 25, "")
