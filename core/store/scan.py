"""A workspace's record files as bytes, for bulk readers (the search index's build).

``read_workspace`` parses every record into models and keeps them in the store's parse cache: right
for the app, costly for a reader that wants each file's text once (a cold search build at 100k
records spent most of its time and memory there). A scan reads each file once, caches nothing and
applies the store's own rules (file kind, size, YAML aliases, name length, case clashes): a record it
hands out as bytes is one ``read_workspace`` would parse from those bytes; every other file is listed
with ``data=None`` and its revision, so the scan's revision is the workspace's revision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.fingerprint import content_hash
from core.models import EMPTY_REVISION, Revision
from core.records import MAX_RECORD_BYTES, RECORD_SUFFIX
from core.store.base import _may_have_aliases, frontmatter_text, name_problem, yaml_has_aliases
from core.store.scope_files import _revision, scope_part


@dataclass(frozen=True, slots=True)
class RecordBytes:
    """One ``*.md`` file of a workspace (not ``MEMORY.md``)."""

    file_name: str
    data: bytes | None  # None: invalid whatever it holds (not a regular file, too big, a store rule)
    revision: Revision  # as ``RecordEntry.revision``
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class WorkspaceScan:
    key: str
    cwd: str
    revision: Revision  # as ``WorkspaceSnapshot.revision``
    records: tuple[RecordBytes, ...]  # sorted by file name


def record_bytes(file_name: str, data: bytes, mtime_ns: int) -> RecordBytes:
    """A regular file's bytes, withheld when a store rule (``entry_from_bytes``'s alias and name
    checks, the size limit) makes it invalid whatever the record format says."""
    blocked = (
        len(data) > MAX_RECORD_BYTES
        or (_may_have_aliases(data) and yaml_has_aliases(frontmatter_text(data)))
        or name_problem(file_name.removesuffix(RECORD_SUFFIX)) is not None
    )
    return RecordBytes(file_name, None if blocked else data, content_hash(data), mtime_ns)


def finish_scan(key: str, cwd: str, scope_json: bytes | None, items: Sequence[RecordBytes]) -> WorkspaceScan:
    """Sorted, names that differ only in case withheld (as ``mark_case_duplicates``), with the revision."""
    out = sorted(items, key=lambda r: r.file_name)
    lowered = [r.file_name.lower() for r in out]
    if len(set(lowered)) != len(out):
        counts: dict[str, int] = {}
        for low in lowered:
            counts[low] = counts.get(low, 0) + 1
        out = [
            replace(r, data=None) if counts[low] > 1 and r.file_name != low else r
            for r, low in zip(out, lowered, strict=True)
        ]
    if scope_json is None and not out:
        revision = EMPTY_REVISION
    else:  # (as ``scope_files.scope_revision``)
        parts = [scope_part(scope_json), *(f"{r.file_name}\0{r.revision}\n" for r in out)]
        revision = _revision(parts)
    return WorkspaceScan(key, cwd, revision, tuple(out))
