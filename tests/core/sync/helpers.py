"""Shared helpers of the sync tests: records, stores and a git environment that never touches $HOME."""

from __future__ import annotations

import os
from pathlib import Path

from core.models import PutOp, Record
from core.store.fs import FileStore


def rec(name: str, body: str = "A durable fact.", description: str | None = None) -> Record:
    return Record(
        name=name,
        description=description or f"about {name}",
        type="project",
        body=f"\n{body}\n",
    )


def put(store: FileStore, cwd: Path | str, *records: Record) -> str:
    snap = store.create_workspace(str(cwd))
    snap = store.commit(snap.key, [PutOp(record=r) for r in records], None)
    return snap.key


def texts(store: FileStore, key: str) -> dict[str, str]:
    snap = store.read_workspace(key)
    return {e.name: (e.record.body if e.record else "") for e in snap.entries}


def git_env(tmp: Path) -> dict[str, str]:
    """A git environment confined to ``tmp``: no global or system config, no credential prompts."""
    home = tmp / "git-home"
    home.mkdir(exist_ok=True)
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        GIT_CONFIG_GLOBAL=str(home / "gitconfig"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
    )
    return env
