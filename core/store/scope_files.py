"""One scope as read (:class:`ScopeFiles`), and the scope after a commit, derived without a re-read.

A commit into a 1,000-record workspace used to pay for the whole scope several times: the revision
(a hash over every entry) before and after, the name map, the valid records, a full MEMORY.md render
for the new state *and* one for the old state (to tell a hand-edited MEMORY.md from ours), a re-sort
of every entry, the counts for the listing. Each is ~0.5 ms at that size. Here each is computed at
most once per read (``cached_property``), and :func:`scope_after` derives the next scope's values from
the previous ones by changing only the entries the commit wrote (bisect into sorted lists), so a
commit costs O(changed records) beyond the one stat per file of the re-read under the lock.

Nothing here decides from a cache: every value is a pure function of the fields of the (frozen)
:class:`ScopeFiles` it is attached to, and ``scope_after`` gives exactly what a fresh read of the
written bytes would give (``tests/core/store/test_scope_files.py`` compares the two after random
batches). Derived values are seeded through :func:`_seed`, so a caller can't tell them from computed
ones.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from core.fingerprint import content_hash
from core.models import EMPTY_REVISION, Record, RecordEntry, Revision
from core.records import INDEX_HEADER


@dataclass
class IndexItems:
    """MEMORY.md's lines, one per valid record, sorted by record name (two aligned lists: a bisect
    on ``names`` finds a line, and rendering is one join of ``lines``)."""

    names: list[str]
    lines: list[str]

    def copy(self) -> IndexItems:
        return IndexItems(list(self.names), list(self.lines))


def scope_part(scope_json: bytes | None) -> str:
    return f"scope.json\0{content_hash(scope_json) if scope_json is not None else '-'}\n"


def entry_part(e: RecordEntry) -> str:
    return f"{e.file_name}\0{e.revision}\n"


def scope_revision(entries: Sequence[RecordEntry], scope_json: bytes | None) -> Revision:
    """A workspace revision: every ``*.md`` except MEMORY.md, plus scope.json."""
    if scope_json is None and not entries:
        return EMPTY_REVISION
    return _revision([scope_part(scope_json), *(entry_part(e) for e in entries)])


def _revision(parts: Iterable[str]) -> Revision:
    return content_hash("".join(parts).encode("utf-8", "surrogateescape"))


def index_line(record: Record) -> str:
    """One MEMORY.md line (``core.records.render_index`` writes the same)."""
    return f"- [{record.name}]({record.name}.md) — {record.description}\n"


def render_items(items: IndexItems) -> bytes:
    """MEMORY.md from sorted items: the bytes ``core.records.render_index`` gives for those records."""
    if not items.lines:
        return INDEX_HEADER.encode("utf-8")
    return (INDEX_HEADER + "\n" + "".join(items.lines)).encode("utf-8")


def index_put(items: IndexItems, record: Record) -> None:
    """Add or replace ``record``'s line in sorted ``items`` (in place)."""
    i = bisect_left(items.names, record.name)
    if i < len(items.names) and items.names[i] == record.name:
        items.lines[i] = index_line(record)
    else:
        items.names.insert(i, record.name)
        items.lines.insert(i, index_line(record))


def index_drop(items: IndexItems, name: str) -> None:
    """Remove ``name``'s line from sorted ``items`` if it has one (in place)."""
    i = bisect_left(items.names, name)
    if i < len(items.names) and items.names[i] == name:
        del items.names[i], items.lines[i]


def _valid(e: RecordEntry) -> int:
    """1 for a valid entry, else 0 (entries the store builds always carry a reason when they have
    no record)."""
    return 0 if e.invalid_reasons else 1


def mark_case_duplicates(entries: list[RecordEntry]) -> list[RecordEntry]:
    """Flag files whose names differ only in letter case (they collide on macOS/Windows); sorted."""
    lowered = {e.file_name.lower() for e in entries}
    if len(lowered) == len(entries):  # the common case: no collisions, nothing to mark
        return sorted(entries, key=lambda x: x.file_name)
    by_lower: dict[str, list[str]] = {}
    for e in entries:
        by_lower.setdefault(e.file_name.lower(), []).append(e.file_name)
    out: list[RecordEntry] = []
    for e in entries:
        group = by_lower[e.file_name.lower()]
        if len(group) > 1 and e.file_name != e.file_name.lower():
            others = ", ".join(n for n in group if n != e.file_name)
            reason = (
                f"its name differs only in letter case from {others}; "
                "case-insensitive file systems can't hold both"
            )
            if reason not in e.invalid_reasons:
                e = e.model_copy(update={"record": None, "invalid_reasons": (*e.invalid_reasons, reason)})
        out.append(e)
    return sorted(out, key=lambda x: x.file_name)


@dataclass(frozen=True)
class ScopeFiles:
    """What a backend read for one scope: scope.json, the record entries, MEMORY.md."""

    key: str
    scope_json: bytes | None
    entries: tuple[RecordEntry, ...]  # sorted by file_name, case duplicates marked
    index: bytes | None
    archived_at: datetime | None = None
    extra_bytes: int = 0  # bytes of scope.json + MEMORY.md, for size display
    blocked: tuple[str, ...] = ()  # scope.json / MEMORY.md present but not regular files: never touched

    @cached_property
    def revision_parts(self) -> list[str]:
        """What the revision hashes: scope.json's part, then one per entry (aligned with ``entries``)."""
        return [scope_part(self.scope_json), *(entry_part(e) for e in self.entries)]

    @cached_property
    def revision(self) -> Revision:
        if self.scope_json is None and not self.entries:
            return EMPTY_REVISION
        return _revision(self.revision_parts)

    @cached_property
    def names(self) -> list[str]:
        """File names of ``entries``, in their (sorted) order."""
        return [e.file_name for e in self.entries]

    @cached_property
    def by_name(self) -> dict[str, RecordEntry]:
        return dict(zip(self.names, self.entries, strict=True))

    @cached_property
    def lowered(self) -> frozenset[str]:
        """Lower-cased file names (a new file whose lower-case name is here collides on macOS/Windows)."""
        return frozenset(n.lower() for n in self.names)

    @cached_property
    def counts(self) -> tuple[int, int, int]:
        """``(valid, invalid, bytes of the entries)``."""
        valid = sum(_valid(e) for e in self.entries)
        return valid, len(self.entries) - valid, sum(e.size for e in self.entries)

    @cached_property
    def index_items(self) -> IndexItems:
        """MEMORY.md's lines for the valid records, sorted by name (a commit edits a copy)."""
        pairs = sorted(
            (e.record.name, index_line(e.record))
            for e in self.entries
            if e.record is not None and not e.invalid_reasons
        )
        return IndexItems([n for n, _ in pairs], [line for _, line in pairs])

    @cached_property
    def index_is_generated(self) -> bool:
        """MEMORY.md is what the store generates for these records (False: missing, or edited by hand)."""
        return self.index is not None and self.index == render_items(self.index_items)


def _seed(files: ScopeFiles, **values: object) -> ScopeFiles:
    """Fill cached properties with values derived elsewhere (same results, computed cheaper)."""
    files.__dict__.update(values)
    return files


def scope_after(
    before: ScopeFiles,
    written: Mapping[str, RecordEntry | None],
    *,
    scope_json: bytes | None,
    index: bytes | None,
    index_items: IndexItems | None = None,
    index_generated: bool | None = None,
) -> ScopeFiles | None:
    """``before`` with the record files in ``written`` replaced, created or (None) deleted.

    ``index_items`` are the MEMORY.md items of the new state and ``index_generated`` whether ``index``
    is their rendering (None: computed when asked). Returns what a fresh read of the same bytes would,
    or None when names differing only in case are involved (before or after): marks then depend on
    every entry's unmarked state, which only a read has, so the caller reads the scope back.
    """
    entries = list(before.entries)
    names = list(before.names)
    parts = list(before.revision_parts)
    valid, invalid, size = before.counts
    lowered = set(before.lowered)
    if len(lowered) != len(names):
        return None
    for fn in sorted(written):
        new = written[fn]
        i = bisect_left(names, fn)
        if i < len(names) and names[i] == fn:
            old = entries[i]
            valid, invalid, size = valid - _valid(old), invalid - (1 - _valid(old)), size - old.size
            if new is None:
                del entries[i], names[i], parts[i + 1]
                lowered.discard(fn.lower())  # unique: this scope has no case duplicates
                continue
            entries[i], parts[i + 1] = new, entry_part(new)
        elif new is None:
            continue
        else:
            if fn.lower() in lowered:
                return None
            lowered.add(fn.lower())
            entries.insert(i, new)
            names.insert(i, fn)
            parts.insert(i + 1, entry_part(new))
        valid, invalid, size = valid + _valid(new), invalid + (1 - _valid(new)), size + new.size
    after = ScopeFiles(
        key=before.key,
        scope_json=scope_json,
        entries=tuple(entries),
        index=index,
        extra_bytes=len(scope_json or b"") + len(index or b""),
        blocked=before.blocked,
    )
    parts[0] = scope_part(scope_json)
    by_name = dict(before.by_name)
    for fn, new in written.items():
        if new is None:
            by_name.pop(fn, None)
        else:
            by_name[fn] = new
    seeded: dict[str, object] = {
        "revision_parts": parts,
        "names": names,
        "by_name": by_name,
        "lowered": frozenset(lowered),
        "counts": (valid, invalid, size),
    }
    if index_items is not None:
        seeded["index_items"] = index_items
    if index_generated is not None:
        seeded["index_is_generated"] = index_generated
    return _seed(after, **seeded)
