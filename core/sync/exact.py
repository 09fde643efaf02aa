"""Exact bytes through ``commit_scopes``, which takes records (and renders them) rather than bytes.

Sync and moves promise byte-for-byte records (a record hand-formatted on one machine arrives as it
is). :meth:`MemoryStore.commit_scopes` — the one transaction over several workspaces, Global and
archives — writes each record as the store renders it, which equals the file for every record the
store or an agent wrote, but not for hand-formatted YAML (quotes, flow style, comments). So each
version becomes an op for the transaction, and the few whose rendering differs are written again
byte for byte right after it (:meth:`MemoryStore.commit_versions`, one CAS commit per workspace).
Between the two only the formatting differs — same name, description, type and body — and
:func:`same_record` lets the next sync settle that without a review.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.errors import InvalidRecordError
from core.layout import RECORD_SUFFIX
from core.models import DeleteOp, PutOp
from core.records import parse_record, render_record

Version = tuple[str, bytes | None]  # record name, its exact bytes (None: delete it)


def as_ops(
    versions: Sequence[Version], current: Callable[[str], bytes | None]
) -> tuple[list[PutOp | DeleteOp], list[Version]]:
    """``versions`` as ops for one transaction, and those to write byte for byte after it.
    ``current(name)``: the record's bytes on disk now (the store keeps hand-written frontmatter of a
    body-only change, so that is what it would write). InvalidRecordError when a version is not a
    valid record (nothing is written then)."""
    ops: list[PutOp | DeleteOp] = []
    exact: list[Version] = []
    for name, data in versions:
        if data is None:
            ops.append(DeleteOp(name=name))
            continue
        record = parse_record(name + RECORD_SUFFIX, data)
        ops.append(PutOp(record=record))
        if render_record(record, base=current(name)) != data:
            exact.append((name, data))
    return ops, exact


def same_record(name: str, a: bytes, b: bytes) -> bool:
    """Whether two files are the same record in different YAML formatting (both valid)."""
    try:
        ra, rb = parse_record(name, a), parse_record(name, b)
    except InvalidRecordError:
        return False
    return render_record(ra) == render_record(rb)
