"""Per-user preferences that belong to the person, not to a memory root: interface language, the
recently opened roots (File ▸ Recent roots) and, per root, the workspace the Session Consolidation
tab last showed.

They live in ``<user config dir>/dsh-memory/prefs.yml`` (platformdirs' answer: ``$XDG_CONFIG_HOME`` or
``~/.config`` on Linux, ``~/Library/Application Support`` on macOS, ``%APPDATA%`` on Windows; tests
point ``XDG_CONFIG_HOME`` at a temp dir), never inside a memory root: a memory root is
shared with agents and other tools, and switching roots must not switch the language. The file is
small, written atomically, and a malformed one is ignored (defaults) rather than fatal — these are
conveniences, and the next save replaces it only with what the user just chose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import platformdirs
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.atomic import write_atomic

Language = Literal["system", "en", "zh_CN"]
MAX_RECENT_ROOTS = 8


class UserPrefs(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    language: Language = "system"
    recent_roots: tuple[str, ...] = Field(default=())
    # root -> the Session Consolidation tab's workspace key there; the latest last, capped.
    consolidation_workspaces: dict[str, str] = Field(default_factory=dict)

    def with_recent_root(self, root: Path) -> UserPrefs:
        """A copy with ``root`` first in the recent list (deduplicated, capped)."""
        text = str(root)
        rest = [r for r in self.recent_roots if r != text]
        return self.model_copy(update={"recent_roots": tuple([text, *rest][:MAX_RECENT_ROOTS])})

    def consolidation_workspace(self, root: Path) -> str | None:
        return self.consolidation_workspaces.get(str(root))

    def with_consolidation_workspace(self, root: Path, key: str | None) -> UserPrefs:
        """A copy remembering ``key`` for ``root`` (None forgets it: the tab shows its default)."""
        kept = {r: k for r, k in self.consolidation_workspaces.items() if r != str(root)}
        if key is not None:
            kept[str(root)] = key
        latest = dict(list(kept.items())[-MAX_RECENT_ROOTS:])
        return self.model_copy(update={"consolidation_workspaces": latest})


def prefs_path() -> Path:
    """Asked at each call (not at import): the environment decides, and tests change it."""
    return platformdirs.user_config_path("dsh-memory", appauthor=False) / "prefs.yml"


def load_prefs(path: Path | None = None) -> UserPrefs:
    path = path or prefs_path()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return UserPrefs.model_validate(data or {})
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ValidationError):
        return UserPrefs()


def save_prefs(prefs: UserPrefs, path: Path | None = None) -> None:
    path = path or prefs_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    data = {
        "language": prefs.language,
        "recent_roots": list(prefs.recent_roots),
        "consolidation_workspaces": dict(prefs.consolidation_workspaces),
    }
    text = "# dsh-memory per-user preferences\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    write_atomic(path, text.encode("utf-8"))
