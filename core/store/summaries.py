"""A persisted per-scope summary cache, so a cold ``list_workspaces()`` need not parse every record.

``<root>/.manager/cache/workspace-summaries.json`` maps each scope (active or archived) to a *stat
fingerprint* of its directory entries and the numbers :class:`~core.models.WorkspaceInfo` shows that
would otherwise need a full parse: valid and invalid record counts and the scope's size in bytes.

- The fingerprint covers every ``*.md`` (``MEMORY.md`` included) and ``scope.json``: name, file type,
  size, ``mtime_ns``, inode and ``ctime_ns`` (``lstat``, never through symlinks). Any change to any
  of them (an edit, even one keeping the size, a new, deleted or renamed file, a replaced file) gives
  a new fingerprint, and that scope is parsed again.
- A scope with a file whose ``mtime``/``ctime`` falls within :data:`core.fingerprint.RACY_WINDOW_NS` of
  the listing is neither trusted from nor written to the cache (coarse file-system clocks: a second
  write in the same tick could keep the same stat).
- The fingerprint is taken *before* the scope is parsed (under the scope's read lock), so a summary
  is never filed under a state newer than the one it was computed from: at worst a change racing the
  parse leaves a fingerprint that no longer matches, and the next listing parses again.
- The Markdown files stay the only truth. Nothing here feeds a revision or a compare-and-swap
  decision: mutations still read and hash real bytes under the lock.
- The file is written atomically (:func:`core.atomic.write_atomic`) and only when something changed.
  Two processes listing at once may overwrite each other's update (last writer wins); that is
  harmless because every summary in either version is correct for its fingerprint, so at worst a
  scope is parsed once more. A damaged, foreign (another root's) or other-version file is ignored and
  rebuilt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from core.atomic import write_atomic
from core.errors import StorageError

CACHE_DIR = "cache"
CACHE_FILE = "workspace-summaries.json"
FORMAT = "dsh-memory/workspace-summaries"
VERSION = 1
SECTIONS = ("active", "archived")


@dataclass(frozen=True)
class ScopeSummary:
    """What a listing needs from a scope beyond ``scope.json``, filed under its fingerprint."""

    fingerprint: str
    record_count: int
    invalid_count: int
    size_bytes: int

    def to_json(self) -> list[object]:
        return [self.fingerprint, self.record_count, self.invalid_count, self.size_bytes]

    @classmethod
    def from_json(cls, raw: object) -> ScopeSummary:
        if not (isinstance(raw, list) and len(raw) == 4 and isinstance(raw[0], str)):
            raise ValueError("bad summary")
        nums = raw[1:]
        if not all(type(n) is int and n >= 0 for n in nums):
            raise ValueError("bad summary numbers")
        return cls(raw[0], nums[0], nums[1], nums[2])


Summaries = dict[str, dict[str, ScopeSummary]]
"""Section (``active`` / ``archived``) -> scope key -> summary."""


class SummaryCache:
    """Load and save ``.manager/cache/workspace-summaries.json`` for one root."""

    def __init__(self, root: Path, manager: Path) -> None:
        self._root = str(root)
        self._manager = manager
        self.path = manager / CACHE_DIR / CACHE_FILE

    def load(self) -> Summaries:
        """The cached summaries; empty when the file is missing, damaged, foreign or another version."""
        empty: Summaries = {s: {} for s in SECTIONS}
        try:
            with open(self.path, "rb") as f:
                doc = json.loads(f.read().decode("utf-8"))
        except (OSError, ValueError):
            return empty
        try:
            if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
                return empty
            if doc.get("root") != self._root:  # copied in from another root
                return empty
            out: Summaries = {}
            for section in SECTIONS:
                raw = doc.get(section)
                if not isinstance(raw, dict):
                    return empty
                out[section] = {str(k): ScopeSummary.from_json(v) for k, v in raw.items()}
            return out
        except (ValueError, TypeError):
            return empty

    def save(self, summaries: Summaries) -> None:
        """Best effort: a cache that can't be written (read-only root...) is simply not written."""
        if not self._manager.is_dir():  # never create the root or .manager just for a cache
            return
        doc = {
            "format": FORMAT,
            "version": VERSION,
            "root": self._root,
            **{s: {k: v.to_json() for k, v in sorted(summaries.get(s, {}).items())} for s in SECTIONS},
        }
        data = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        try:
            self.path.parent.mkdir(exist_ok=True)
            write_atomic(self.path, data)
        except (OSError, StorageError):
            pass
