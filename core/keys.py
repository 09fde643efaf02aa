"""Where the memory root is and how a workspace cwd maps to its folder key (PRODUCT.md §2)."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping
from pathlib import Path


def _env_path(value: str | None) -> Path | None:
    """An environment value as a path; blank counts as unset and a leading ``~`` is expanded."""
    if value is None or not value.strip():
        return None
    return Path(os.path.expanduser(value.strip()))


def dsh_home(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    return _env_path(env.get("DSH_HOME")) or Path(os.path.expanduser("~")) / ".dsh"


def resolve_root(cli_root: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Path:
    """``--root`` beats ``DSH_MEMORY_ROOT`` beats ``$DSH_HOME/memory`` beats ``~/.dsh/memory``."""
    env = os.environ if env is None else env
    if cli_root is not None and str(cli_root).strip():
        return Path(os.path.abspath(os.path.expanduser(str(cli_root))))
    explicit = _env_path(env.get("DSH_MEMORY_ROOT"))
    if explicit is not None:
        return Path(os.path.abspath(explicit))
    return Path(os.path.abspath(dsh_home(env) / "memory"))


def default_sessions_root(env: Mapping[str, str] | None = None) -> Path:
    return dsh_home(env) / "sessions"


def normalize_cwd(cwd: str | os.PathLike[str]) -> str:
    """Absolute and normalized, but never ``realpath``: a symlinked directory is a new workspace.

    A cwd that is not valid UTF-8 (Python hands such bytes over as surrogate escapes) can't be written
    into scope.json or hashed into a key the way DSH does: a clear usage error, not a traceback.
    """
    path = os.path.abspath(os.fspath(cwd))
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        from core.errors import UsageError

        shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        raise UsageError(
            f"The folder {shown!r} has a name that is not valid UTF-8, so DSH memory can't name a workspace "
            "for it. Rename the folder (or run from a parent folder) and try again.",
            reason="not-utf8",
        ) from None
    return path


def workspace_slug(cwd: str) -> str:
    base = os.path.basename(normalize_cwd(cwd))
    text = unicodedata.normalize("NFKC", base).lower()
    # Letters and digits of any script survive; every other run becomes one dash.
    out: list[str] = []
    for ch in text:
        cat = unicodedata.category(ch)
        out.append(ch if cat[0] in ("L", "N") else "-")
    slug = re.sub(r"-+", "-", "".join(out)).strip("-")[:48].strip("-")
    return slug or "workspace"


def workspace_key(cwd: str | os.PathLike[str]) -> str:
    import hashlib  # (here: ``core.cli.main`` imports this module for every command; hashlib costs 3 ms)

    path = normalize_cwd(cwd)
    digest = hashlib.sha256(path.encode("utf-8")).hexdigest()[:16]
    return f"{workspace_slug(path)}-{digest}"


def workspace_name(cwd: str) -> str:
    """What the user types to confirm a purge: the basename of the workspace's cwd."""
    return os.path.basename(normalize_cwd(cwd)) or normalize_cwd(cwd)
