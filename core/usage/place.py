"""From an :class:`Access` (a path a tool named) to the memory files it used, and how.

- a file target: ``opened`` / ``edited`` / ``listed`` / ``unknown`` as the access says; a search
  of one file counts only when its pattern matches the file's current text;
- a folder target (the root, ``workspaces/``, one workspace): a listing covers the files in it
  (everything under it when recursive), filtered by the access's glob; a search is **"seen in a
  search"** (``matched``) for each file under it whose current text matches the pattern. Tool
  results are never read, so the pattern is re-run here against the text of the file as it is
  when the ledger is updated (case-insensitive when the call said so; a pattern Python's ``re``
  cannot compile is searched for literally). A record changed since may have matched then and
  not now: that is the price of storing no results, and the docs say so.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator

from core.errors import DshMemoryError
from core.layout import GLOBAL_FILE, INDEX_FILE, RECORD_SUFFIX, WORKSPACES_DIR
from core.store.api import MemoryStore
from core.usage.paths import GLOBAL_KEY, MemoryRoot, Target
from core.usage.types import Access, Kind

MAX_PATTERN_CHARS = 512


class MemoryFiles:
    """The memory files as they are now, read lazily through the store and kept for one update."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._keys: list[str] | None = None
        self._known: set[str] | None = None
        self._names: dict[str, tuple[str, ...]] = {}
        self._texts: dict[tuple[str, str], str] = {}

    def keys(self) -> list[str]:
        if self._keys is None:
            try:
                self._keys = sorted(w.key for w in self.store.list_workspaces(counts=False))
            except DshMemoryError:
                self._keys = []
        return self._keys

    def known_keys(self) -> list[str]:
        self.known("")
        return sorted(self._known or ())

    def known(self, key: str) -> bool:
        """Whether ``key`` is a workspace of this root, active or archived ("" is GLOBAL.md's). Uses
        in any other (a purged workspace, a folder never created) are not kept: purging a workspace
        removes its memory from the ledger too, at the next update."""
        if self._known is None:
            try:
                archived = [w.key for w in self.store.list_workspaces(archived=True, counts=False)]
            except DshMemoryError:
                archived = []
            self._known = {"", *self.keys(), *archived}
        return key in self._known

    def names(self, key: str) -> tuple[str, ...]:
        """Record names of workspace ``key`` (invalid files by their stem), then ``MEMORY.md``."""
        if key not in self._names:
            try:
                snap = self.store.read_workspace(key)
            except DshMemoryError:
                self._names[key] = ()
                return ()
            names = (*sorted(e.name for e in snap.entries), INDEX_FILE)
            self._names[key] = names
            self._texts[(key, INDEX_FILE)] = snap.index_text
            for entry in snap.entries:
                data = self.store.inspect.record_file(key, entry.file_name) if entry.record is None else None
                if entry.record is not None:
                    record = entry.record
                    self._texts[(key, entry.name)] = f"{record.name}\n{record.description}\n{record.body}"
                elif data is not None:
                    self._texts[(key, entry.name)] = data.decode("utf-8", "replace")
        return self._names[key]

    def text(self, key: str, name: str) -> str | None:
        if key == GLOBAL_KEY:
            if (key, name) not in self._texts:
                try:
                    self._texts[(key, name)] = self.store.read_global().text
                except DshMemoryError:
                    self._texts[(key, name)] = ""
        else:
            self.names(key)
        return self._texts.get((key, name))

    def exists(self, key: str, name: str) -> bool:
        if key == GLOBAL_KEY:
            return bool(self.text(key, name))
        return name in self.names(key)


def _matcher(access: Access) -> re.Pattern[str] | None:
    pattern = (access.pattern or "")[:MAX_PATTERN_CHARS]
    if not pattern:
        return None
    flags = re.IGNORECASE if access.ignore_case else 0
    if not access.fixed:
        try:
            return re.compile(pattern, flags)
        except re.error:
            pass
    return re.compile(re.escape(pattern), flags)


def _glob_ok(glob: str | None, rel: str) -> bool:
    if not glob:
        return True
    if "/" in glob:
        return fnmatch.fnmatchcase(rel, glob) or (glob.startswith("**/") and fnmatch.fnmatchcase(rel, glob[3:]))
    return fnmatch.fnmatchcase(rel.rsplit("/", 1)[-1], glob)


def _under(target: Target, files: MemoryFiles, recursive: bool) -> Iterator[tuple[str, str, str]]:
    """(key, name, path relative to the target) of the memory files in a folder target."""
    if target.where == "workspace" and target.key is not None:
        for name in files.names(target.key):
            yield target.key, name, name if name == INDEX_FILE else name + RECORD_SUFFIX
        return
    if target.where == "root" and files.exists(GLOBAL_KEY, GLOBAL_FILE):
        yield GLOBAL_KEY, GLOBAL_FILE, GLOBAL_FILE
    if not recursive:
        return
    prefix = f"{WORKSPACES_DIR}/" if target.where == "root" else ""
    for key in files.keys():  # noqa: SIM118 (MemoryFiles.keys lists workspaces; not a dict)
        for name in files.names(key):
            leaf = name if name == INDEX_FILE else name + RECORD_SUFFIX
            yield key, name, f"{prefix}{key}/{leaf}"


def place(access: Access, target: Target, files: MemoryFiles) -> Iterator[tuple[str, str, Kind]]:
    """(key, name, kind) for each memory file ``access`` used through ``target``."""
    if target.is_file:
        assert target.key is not None and target.name is not None
        if access.kind == "matched":
            matcher = _matcher(access)
            text = files.text(target.key, target.name)
            if matcher is not None and text and matcher.search(text):
                yield target.key, target.name, "matched"
        elif access.kind != "listed" or _glob_ok(access.glob, target.name):
            yield target.key, target.name, access.kind
        return
    if access.kind == "listed":
        recursive = access.recursive or bool(access.glob and ("/" in access.glob))
        for key, name, rel in _under(target, files, recursive):
            if _glob_ok(access.glob, rel):
                yield key, name, "listed"
    elif access.kind == "matched" and access.recursive:
        matcher = _matcher(access)
        if matcher is None:
            return
        for key, name, rel in _under(target, files, True):
            if _glob_ok(access.glob, rel):
                text = files.text(key, name)
                if text and matcher.search(text):
                    yield key, name, "matched"


def place_all(access: Access, root: MemoryRoot, files: MemoryFiles) -> tuple[list[tuple[str, str, Kind]], bool]:
    """The uses of one access and whether its path was outside the root."""
    where = root.resolve(access.path, access.cwd)
    if isinstance(where, str):
        return [], where == "outside"
    return list(place(access, where, files)), False
