"""The Workspace tab's staged batch: edits to one workspace, kept apart from disk until one commit.

A :class:`ChangeSet` holds the workspace as it was read (:class:`LoadedWorkspace`) and the staged
operations by record name: a whole-record put or a delete. It answers what the table shows
(:meth:`ChangeSet.rows`), which names exist once the batch is applied, the batch as per-file
unified diffs (``MEMORY.md`` included), and commits it with one compare-and-swap against the
revision the batch was built on. Nothing here touches Qt; the tab is a view over it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from core.models import DeleteOp, Op, PutOp, Record, RecordEntry, Revision, WorkspaceSnapshot
from core.records import render_index, render_record
from core.store.api import MemoryStore
from core.textdiff import unified_diff


@dataclass(frozen=True)
class LoadedWorkspace:
    """A workspace snapshot and the bytes of its invalid files (shown as text to be corrected)."""

    snapshot: WorkspaceSnapshot
    raw: Mapping[str, bytes] = field(default_factory=dict)  # file name -> bytes, invalid files only

    def raw_text(self, entry: RecordEntry) -> str:
        data = self.raw.get(entry.file_name)
        return "" if data is None else data.decode("utf-8", errors="replace")


def load_workspace(store: MemoryStore, key: str) -> LoadedWorkspace:
    """Read workspace ``key`` and its invalid files' bytes through the store (runs on a worker)."""
    snap = store.read_workspace(key)
    raw: dict[str, bytes] = {}
    for entry in snap.entries:
        if not entry.is_valid:
            data = store.inspect.record_file(key, entry.file_name)
            if data is not None:
                raw[entry.file_name] = data
    return LoadedWorkspace(snap, raw)


@dataclass(frozen=True)
class RecordRow:
    """One row: a record on disk, an invalid file, or a staged new/changed/deleted record."""

    name: str
    file_name: str
    type: str  # "" for an invalid file
    description: str
    size: int
    invalid_reasons: tuple[str, ...] = ()
    staged: str = ""  # "", "new", "changed", "deleted"
    haystack: str = field(default="", repr=False, compare=False)  # lower-cased text for filtering

    @property
    def status(self) -> str:
        if self.staged:
            return f"staged: {self.staged}"
        if self.invalid_reasons:
            return "invalid: " + "; ".join(self.invalid_reasons)
        return ""

    @property
    def short_status(self) -> str:
        """What the Status column shows; an invalid file's reasons go in its Description cell."""
        if self.staged:
            return f"staged: {self.staged}"
        return "invalid" if self.invalid_reasons else ""

    @cached_property
    def cells(self) -> tuple[str, str, str, str, str]:
        """The five displayed texts, computed once (the table asks for them on every repaint)."""
        description = self.description
        if self.invalid_reasons and not self.staged:
            description = "; ".join(self.invalid_reasons)
        size = f"{self.size:,}" if self.size else ""
        return (self.name, self.type or "—", description, size, self.short_status)

    @cached_property
    def search_text(self) -> str:
        return self.haystack or f"{self.name}\n{self.description}".lower()


@dataclass
class Outgoing:
    """Records staged to be written into another workspace (a bulk move or copy), as it was read."""

    target: LoadedWorkspace
    records: dict[str, Record] = field(default_factory=dict)

    @property
    def ops(self) -> list[Op]:
        return [PutOp(record=r) for r in self.records.values()]


class ChangeSet:
    """Staged puts and deletes over one loaded workspace (plus records going to other workspaces)."""

    def __init__(self, loaded: LoadedWorkspace) -> None:
        self.loaded = loaded
        self.staged: dict[str, Op] = {}
        self.outgoing: dict[str, Outgoing] = {}  # target key -> records to put there

    def __repr__(self) -> str:
        return f"ChangeSet({self.key!r}, base={self.base_revision[:12]}, staged={sorted(self.staged)})"

    @property
    def snapshot(self) -> WorkspaceSnapshot:
        return self.loaded.snapshot

    @property
    def key(self) -> str:
        return self.snapshot.key

    @property
    def base_revision(self) -> Revision:
        """The revision the batch is built on: the commit is a compare-and-swap against it."""
        return self.snapshot.revision

    def __bool__(self) -> bool:
        return bool(self.staged) or any(o.records for o in self.outgoing.values())

    def __len__(self) -> int:
        return len(self.staged) + sum(len(o.records) for o in self.outgoing.values())

    @property
    def ops(self) -> list[Op]:
        return list(self.staged.values())

    # --- staging ------------------------------------------------------------------------------
    def stage_put(self, record: Record, *, replacing: str | None = None) -> None:
        """Stage ``record`` as a whole-record put; ``replacing`` is the name it had (a rename also
        stages deleting the old name). Putting back exactly what is on disk unstages it."""
        if replacing is not None and replacing != record.name:
            if self.snapshot.get(replacing) is not None:
                self.staged[replacing] = DeleteOp(name=replacing)
            else:
                self.staged.pop(replacing, None)
        entry = self.snapshot.get(record.name)
        if entry is not None and entry.is_valid and entry.record == record:
            self.staged.pop(record.name, None)  # back to what is on disk: nothing to do
        else:
            self.staged[record.name] = PutOp(record=record)

    def stage_delete(self, name: str) -> bool:
        """Stage deleting ``name``; True when it is on disk (False: a staged new record was dropped)."""
        if self.snapshot.get(name) is None:
            self.staged.pop(name, None)
            return False
        self.staged[name] = DeleteOp(name=name)
        return True

    def unstage(self, name: str) -> bool:
        """Drop the one staged change to ``name`` (a put or a delete); False when none was staged."""
        return self.staged.pop(name, None) is not None

    def current_record(self, name: str) -> Record | None:
        """``name`` as the batch would leave it: the staged put, else the valid record on disk
        (None when it is staged for deletion, invalid or absent)."""
        op = self.staged.get(name)
        if isinstance(op, PutOp):
            return op.record
        if isinstance(op, DeleteOp):
            return None
        entry = self.snapshot.get(name)
        return entry.record if entry is not None and entry.is_valid else None

    def stage_type(self, names: list[str], rtype: str) -> list[str]:
        """Stage changing the type of every record in ``names``; returns the names staged."""
        done = []
        for name in names:
            record = self.current_record(name)
            if record is not None and record.type != rtype:
                self.stage_put(record.model_copy(update={"type": rtype}))
                done.append(name)
        return done

    def stage_transfer(self, target: LoadedWorkspace, names: list[str], *, move: bool) -> tuple[list[str], list[str]]:
        """Stage copying (or moving: also deleting here) ``names`` into ``target``.

        Returns ``(staged, refused)``: a name that already exists in the target with other content is
        refused (never overwritten by a bulk action); an identical one needs no copy.
        """
        if target.snapshot.key == self.key:
            return [], list(names)
        out = self.outgoing.get(target.snapshot.key)
        if out is None or out.target.snapshot.revision != target.snapshot.revision:
            out = self.outgoing[target.snapshot.key] = Outgoing(target, dict(out.records) if out else {})
        staged: list[str] = []
        refused: list[str] = []
        for name in names:
            record = self.current_record(name)
            if record is None:
                refused.append(name)
                continue
            there = target.snapshot.get(name)
            if there is not None and not (there.is_valid and there.record == record):
                refused.append(name)
                continue
            if there is None:
                out.records[name] = record
            if move:
                self.stage_delete(name)
            staged.append(name)
        if not out.records:
            self.outgoing.pop(target.snapshot.key, None)
        return staged, refused

    def discard(self) -> None:
        self.staged.clear()
        self.outgoing.clear()

    def rebase(self, loaded: LoadedWorkspace) -> None:
        """Keep the staged operations over a newer read of the same workspace (review them again)."""
        self.loaded = loaded

    def staged_record(self, name: str) -> Record | None:
        op = self.staged.get(name)
        return op.record if isinstance(op, PutOp) else None

    def known_names(self) -> set[str]:
        """Record names that exist once the batch is applied."""
        names = {e.name for e in self.snapshot.entries}
        for name, op in self.staged.items():
            if isinstance(op, PutOp):
                names.add(name)
            else:
                names.discard(name)
        return names

    # --- what the table shows ---------------------------------------------------------------------
    def rows(self) -> list[RecordRow]:
        rows = [self._row_for(e.name, e) for e in self.snapshot.entries]
        seen = {e.name for e in self.snapshot.entries}
        for name, op in self.staged.items():
            if name not in seen and isinstance(op, PutOp):
                rows.append(self._row_for(name, None))
        return rows

    def _row_for(self, name: str, entry: RecordEntry | None) -> RecordRow:
        op = self.staged.get(name)
        staged = ""
        record = entry.record if entry is not None else None
        if isinstance(op, PutOp):
            staged = "changed" if entry is not None else "new"
            record = op.record
        elif isinstance(op, DeleteOp):
            staged = "deleted"
        reasons = entry.invalid_reasons if entry is not None and not isinstance(op, PutOp) else ()
        file_name = entry.file_name if entry is not None else f"{name}.md"
        size = entry.size if entry is not None else 0
        if isinstance(op, PutOp):
            size = len(render_record(op.record))
        if record is not None:
            hay = f"{record.name}\n{record.description}\n{record.type}\n{record.body}".lower()
            return RecordRow(name, file_name, record.type, record.description, size, reasons, staged, hay)
        return RecordRow(name, file_name, "", "", size, reasons, staged, f"{name}\n{' '.join(reasons)}".lower())

    # --- diff and commit ---------------------------------------------------------------------------
    def _old_bytes(self, name: str) -> bytes | None:
        entry = self.snapshot.get(name)
        if entry is None:
            return None
        raw = self.loaded.raw.get(entry.file_name)
        if raw:
            return raw
        return render_record(entry.record) if entry.record is not None else b""

    def diff(self) -> str:
        """Per-file unified diffs of the batch, MEMORY.md included ("" when nothing is staged)."""
        if not self.staged:
            return ""
        chunks: list[str] = []
        for name in sorted(self.staged):
            op = self.staged[name]
            old = self._old_bytes(name)
            old_text = old.decode("utf-8", "replace") if old is not None else ""
            if isinstance(op, PutOp):
                new_text = render_record(op.record, base=old).decode("utf-8")
                label_old = f"a/{name}.md" if old is not None else "/dev/null"
                chunks.append(unified_diff(old_text, new_text, label_old, f"b/{name}.md"))
            else:
                chunks.append(unified_diff(old_text, "", f"a/{name}.md", "/dev/null"))
        records = {r.name: r for r in self.snapshot.records()}
        for name, op in self.staged.items():
            if isinstance(op, PutOp):
                records[name] = op.record
            else:
                records.pop(name, None)
        new_index = render_index(records.values()).decode("utf-8")
        chunks.append(unified_diff(self.snapshot.index_text, new_index, "a/MEMORY.md", "b/MEMORY.md"))
        for out in self.outgoing.values():
            chunks.extend(_outgoing_diff(out))
        return "\n".join(c for c in chunks if c)


def _outgoing_diff(out: Outgoing) -> list[str]:
    """The target workspace's files as the transfer leaves them, labelled ``<workspace>/<file>``."""
    snap = out.target.snapshot
    where = snap.info.display_name
    chunks = [
        unified_diff("", render_record(r).decode("utf-8"), "/dev/null", f"b/{where}/{name}.md")
        for name, r in sorted(out.records.items())
    ]
    records = {r.name: r for r in snap.records()}
    records.update(out.records)
    new_index = render_index(records.values()).decode("utf-8")
    chunks.append(unified_diff(snap.index_text, new_index, f"a/{where}/MEMORY.md", f"b/{where}/MEMORY.md"))
    return chunks


def commit_changes(
    store: MemoryStore,
    key: str,
    ops: list[Op],
    expect: Revision,
    allow_secrets: bool = False,
    outgoing: tuple[Outgoing, ...] = (),
) -> LoadedWorkspace:
    """One compare-and-swap commit of a batch (runs on a worker); ConflictError when ``expect`` is stale.

    Records going to other workspaces (a bulk move or copy) are committed first, each with its own
    CAS against the target as it was read when staged, and only then this workspace's batch (which
    holds a move's deletes). So a failure part-way leaves a record in both places, never in neither.
    """
    for out in outgoing:
        if out.records:
            store.commit(out.target.snapshot.key, out.ops, out.target.snapshot.revision, allow_secrets=allow_secrets)
    if ops:
        store.commit(key, ops, expect, origin="manual", allow_secrets=allow_secrets)
    return load_workspace(store, key)
