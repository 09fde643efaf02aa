"""This machine's private sync files under ``.manager/sync/``: small JSON documents, each written
atomically and validated before use (a damaged one is ignored and reported, never acted on)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from core import messages as msg
from core.atomic import write_atomic
from core.errors import StorageError
from core.layout import MANAGER_DIR, SYNC_DIR

MAX_STATE_BYTES = 64 << 20  # a pending review holds record texts: generous, still bounded


def sync_path(root: Path) -> Path:
    """``<root>/.manager/sync`` without creating anything (reads on a read-only root)."""
    return root / MANAGER_DIR / SYNC_DIR


def sync_dir(root: Path) -> Path:
    """``<root>/.manager/sync`` (created private; a symlink there is refused, never followed)."""
    manager = root / MANAGER_DIR
    d = manager / SYNC_DIR
    for p in (manager, d):
        if p.is_symlink():
            raise StorageError(msg.SYNC_SYMLINK.format(path=p))
        if not p.exists():
            os.makedirs(p, mode=0o700, exist_ok=True)
    return d


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object from ``path``; None when absent, damaged, a symlink or over the budget."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_STATE_BYTES:
            return None
        obj = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def write_json(path: Path, obj: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(obj, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8"), mode=0o600)


def remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
