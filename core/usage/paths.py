"""Where a path an agent named lands in the memory root: a record, an index, GLOBAL.md, a folder.

Pure string work (no file system access): the agent's paths are resolved the way its shell would
(``~`` expanded, relative to the session's cwd, ``..`` folded) and compared with the root's
absolute spelling and, when the root is reached through a symlink, its real spelling too. Nothing
here follows a link or touches a file, so a path in a log can never make the ledger read outside
the root.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from typing import Literal

from core.layout import GLOBAL_FILE, INDEX_FILE, RECORD_SUFFIX, WORKSPACES_DIR

GLOBAL_KEY = ""  # the "workspace" of GLOBAL.md in the ledger (no real key is empty)
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_KEY = re.compile(r"^[^/\\\x00]{1,128}$")

Where = Literal["root", "workspaces", "workspace", "global", "index", "record"]


@dataclass(frozen=True)
class Target:
    """A place in the memory root. ``name`` is the record name, ``INDEX_FILE`` or ``GLOBAL_FILE``
    for file targets and None for folders."""

    where: Where
    key: str | None = None
    name: str | None = None

    @property
    def is_file(self) -> bool:
        return self.name is not None


OUTSIDE = "outside"  # not under the root at all
INTERNAL = "internal"  # under the root but not memory (.manager, archived, reviews, settings.yml...)


class MemoryRoot:
    """The root's spellings, computed once per ledger update."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.abs = os.path.abspath(os.fspath(root))
        real = os.path.realpath(self.abs)
        self.spellings = (self.abs,) if real == self.abs else (self.abs, real)

    def markers(self) -> tuple[str, ...]:
        """Substrings one of which a log line must contain to name something in the root (a cheap
        pre-filter: a tool call without any of them is not parsed)."""
        out = {GLOBAL_FILE, INDEX_FILE, WORKSPACES_DIR, RECORD_SUFFIX}
        for spelling in self.spellings:
            base = os.path.basename(spelling)
            if base:
                out.add(base)
        return tuple(sorted(out))

    def resolve(self, path: str, cwd: str | None) -> Target | str:
        """``Target``, ``OUTSIDE`` or ``INTERNAL`` for one path argument (``cwd`` may be None:
        then a relative path names nothing we can place, which is ``OUTSIDE``)."""
        text = path.strip()
        if not text or "\x00" in text:
            return OUTSIDE
        if text.startswith("~"):
            text = os.path.expanduser(text)
        if not posixpath.isabs(text):
            if cwd is None or not posixpath.isabs(cwd):
                return OUTSIDE
            text = posixpath.join(cwd, text)
        full = posixpath.normpath(text)
        for spelling in self.spellings:
            if full == spelling:
                return Target("root")
            if full.startswith(spelling.rstrip("/") + "/"):
                return _classify(full[len(spelling.rstrip("/")) + 1 :].split("/"))
        return OUTSIDE


def _classify(parts: list[str]) -> Target | str:
    if parts == [GLOBAL_FILE]:
        return Target("global", GLOBAL_KEY, GLOBAL_FILE)
    if not parts or parts[0] != WORKSPACES_DIR:
        return INTERNAL
    if len(parts) == 1:
        return Target("workspaces")
    key = parts[1]
    if not _KEY.match(key) or key.startswith("."):
        return INTERNAL
    if len(parts) == 2:
        return Target("workspace", key)
    if len(parts) == 3:
        leaf = parts[2]
        if leaf == INDEX_FILE:
            return Target("index", key, INDEX_FILE)
        stem = leaf.removesuffix(RECORD_SUFFIX)
        if leaf.endswith(RECORD_SUFFIX) and _NAME.match(stem) and stem.lower() != "memory":
            return Target("record", key, stem)
    return INTERNAL  # scope.json, deeper folders, temp files: not memory an agent reads
