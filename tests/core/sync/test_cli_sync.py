"""``dsh-memory move`` and ``dsh-memory sync`` as a user runs them."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import pytest

from core.cli.main import main
from core.keys import workspace_key
from core.store.fs import FileStore
from tests.core.sync.helpers import git_env, put, rec, texts


def run(root: Path, *args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["--root", str(root), *args], stdout=out, stderr=err)
    return code, out.getvalue() + err.getvalue()


def test_move_lists_conflicts_then_takes_a_choice(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    store = FileStore(root)
    key = put(store, tmp_path / "old", rec("alpha", "moved text"), rec("beta"))
    put(store, tmp_path / "new", rec("alpha", "existing text"))
    code, text = run(root, "move", "--key", key, "--to-cwd", str(tmp_path / "new"))
    assert code == 3 and "Nothing was moved" in text and "-existing text" in text and "+moved text" in text
    code, text = run(root, "--json", "move", "--key", key, "--to-cwd", str(tmp_path / "new"), "--take", "moved")
    assert code == 0, text
    data = json.loads(text)
    assert data["written"] and data["replaced"] == ["alpha"] and data["incoming"] == ["beta"]
    assert texts(FileStore(root), workspace_key(str(tmp_path / "new")))["alpha"] == "\nmoved text\n"


def test_sync_from_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = git_env(tmp_path)
    for k in ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_TERMINAL_PROMPT"):
        monkeypatch.setenv(k, env[k])
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--bare", "-q", str(remote)], env=env, check=True)
    a, b = tmp_path / "a", tmp_path / "b"
    key = put(FileStore(a), "/srv/shop", rec("alpha"))
    code, text = run(a, "sync", "--remote", str(remote))
    assert code == 0 and text.startswith("pushed"), text
    code, text = run(b, "sync", "--remote", str(remote))
    assert code == 0 and text.startswith("merged"), text
    assert texts(FileStore(b), key) == {"alpha": "\nA durable fact.\n"}
    code, text = run(b, "sync", "--status")
    assert code == 0 and str(remote) in text and "merged" in text
    assert os.environ["HOME"] == env["HOME"]


def test_sync_review_and_map_from_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.models import PutOp

    env = git_env(tmp_path)
    for k in ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_TERMINAL_PROMPT"):
        monkeypatch.setenv(k, env[k])
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--bare", "-q", str(remote)], env=env, check=True)
    a, b = tmp_path / "a", tmp_path / "b"
    laptop_dir = tmp_path / "laptop" / "shop"
    key = put(FileStore(a), laptop_dir, rec("alpha", "base"))
    run(a, "sync", "--remote", str(remote))
    run(b, "sync", "--remote", str(remote))
    FileStore(a).commit(key, [PutOp(record=rec("alpha", "from a"))], None)
    FileStore(b).commit(key, [PutOp(record=rec("alpha", "from b"))], None)
    run(a, "sync")
    code, text = run(b, "sync")
    assert code == 20 and text.startswith("review"), text
    code, text = run(b, "sync", "--review")
    item = f"workspaces/{key}/alpha.md"
    assert item in text and "-from b" in text and "+from a" in text
    code, text = run(b, "sync", "--accept", f"{item}=theirs")
    assert "[theirs]" in text and "Every item is chosen" in text
    code, text = run(b, "sync")
    assert code == 0, text
    # The laptop's folder is not on this machine: --map proposes one by name.
    (tmp_path / "desktop" / "shop").mkdir(parents=True)
    code, text = run(b, "sync", "--map", "--search", str(tmp_path / "desktop"))
    assert key in text and str(tmp_path / "desktop" / "shop") in text and "same-name" in text


def test_purge_of_a_synced_workspace_says_the_next_sync_rewrites_the_remote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = git_env(tmp_path)
    for k in ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_TERMINAL_PROMPT"):
        monkeypatch.setenv(k, env[k])
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--bare", "-q", str(remote)], env=env, check=True)
    a = tmp_path / "a"
    key = put(FileStore(a), "/srv/hush", rec("alpha", "PURGE-ME-CLI"))
    assert run(a, "sync", "--remote", str(remote))[0] == 0
    assert run(a, "archive", "--key", key)[0] == 0
    code, text = run(a, "purge", "--key", key, "--confirm", "hush")
    assert code == 0 and "Synced history was rewritten" in text and "every other machine must sync" in text, text
    code, text = run(a, "sync")
    assert code == 0, text
    objects = subprocess.run(
        ["git", f"--git-dir={remote}", "cat-file", "--batch-all-objects", "--batch"], env=env, capture_output=True,
        check=True,
    ).stdout
    assert b"PURGE-ME-CLI" not in objects
