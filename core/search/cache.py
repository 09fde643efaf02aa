"""Persisted search cache under ``<root>/.manager/cache/``: makes a cold start skip re-tokenizing.

The Markdown files stay the only truth. The cache holds, per scope, the stat fingerprint it was
built from and its documents with their analyses; on load, a scope whose files still have that
fingerprint is used as is, any other scope is re-read through the store (reusing the cached
analyses of files whose revision did not change). The file is ``MAGIC + sha256(payload) +
payload`` with ``payload = marshal.dumps(...)`` of plain dicts/lists/str/int/float (marshal
cannot execute code); a wrong magic, checksum or shape means "no cache", and the next save
overwrites it.
"""

from __future__ import annotations

import hashlib
import marshal
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from core.atomic import write_atomic
from core.models import WorkspaceInfo
from core.search.documents import Analysis, Doc

CACHE_FILE = "search-index-v2.bin"
MAGIC = b"DSHSRCH2"
_VERSION = 2


def _doc_row(d: Doc) -> tuple[Any, ...]:
    a = d.analysis
    return (
        d.kind,
        d.name,
        d.description,
        d.type,
        d.body,
        d.file_name,
        d.section_index,
        d.mtime_ns,
        d.revision,
        a.weights,
        a.points,
        a.norm,
        a.name_key,
        a.length,
    )


def _doc_from_row(row: Any, scope_key: str, cwd: str, archived: bool) -> Doc:
    (kind, name, description, type_, body, file_name, section_index, mtime_ns, revision) = row[:9]
    weights, points, norm, name_key, length = row[9:14]
    for value, kind_of in (
        (kind, str),
        (name, str),
        (description, str),
        (type_, str),
        (body, str),
        (file_name, str),
        (section_index, int),
        (mtime_ns, int),
        (revision, str),
        (weights, dict),
        (points, dict),
        (norm, str),
        (name_key, str),
        (length, int),
    ):
        if not isinstance(value, kind_of):
            raise ValueError("bad cache row")
    analysis = Analysis(weights=weights, points=points, norm=norm, name_key=name_key, length=length)
    return Doc(
        scope_key=scope_key,
        cwd=cwd,
        archived=archived,
        kind=kind,
        name=name,
        description=description,
        type=type_,
        body=body,
        file_name=file_name,
        section_index=section_index,
        mtime_ns=mtime_ns,
        revision=revision,
        analysis=analysis,
        weights=weights,
    )


class CachedScope:
    """One scope as the cache remembers it."""

    def __init__(
        self,
        sid: str,
        key: str,
        cwd: str,
        archived: bool,
        revision: str,
        fingerprint: tuple[tuple[str, int, int, int], ...] | None,
        docs: list[Doc],
        info: WorkspaceInfo | None,
        postings: dict[str, list[int]] | None = None,
        field_reps: dict[str, list[int]] | None = None,
    ) -> None:
        self.sid = sid
        self.key = key
        self.cwd = cwd
        self.archived = archived
        self.revision = revision
        self.fingerprint = fingerprint
        self.docs = docs
        self.info = info
        self.postings = postings  # term -> indexes into ``docs`` (saves rebuilding the postings)
        self.field_reps = field_reps  # term -> indexes into ``docs``, repeated by field points


def encode(scopes: Iterable[CachedScope]) -> bytes:
    payload = marshal.dumps(
        {
            "version": _VERSION,
            "scopes": [
                {
                    "sid": s.sid,
                    "key": s.key,
                    "cwd": s.cwd,
                    "archived": s.archived,
                    "revision": s.revision,
                    "fingerprint": list(s.fingerprint) if s.fingerprint is not None else None,
                    "info": s.info.model_dump(mode="json") if s.info is not None else None,
                    "docs": [_doc_row(d) for d in s.docs],
                    "postings": s.postings,
                    "field_reps": s.field_reps,
                }
                for s in scopes
            ],
        }
    )
    return MAGIC + hashlib.sha256(payload).digest() + payload


def decode(data: bytes) -> list[CachedScope]:
    """The cached scopes; raises ValueError for anything that isn't an intact cache of this version."""
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 32:
        raise ValueError("not a search cache")
    digest = data[len(MAGIC) : len(MAGIC) + 32]
    payload = data[len(MAGIC) + 32 :]
    if hashlib.sha256(payload).digest() != digest:
        raise ValueError("damaged search cache")
    try:
        obj = marshal.loads(payload)
    except (EOFError, ValueError, TypeError) as exc:
        raise ValueError("unreadable search cache") from exc
    if not isinstance(obj, dict) or obj.get("version") != _VERSION or not isinstance(obj.get("scopes"), list):
        raise ValueError("search cache of another version")
    out: list[CachedScope] = []
    for raw in obj["scopes"]:
        if not isinstance(raw, dict):
            raise ValueError("bad cache scope")
        sid, key, cwd, archived, revision = (raw.get(k) for k in ("sid", "key", "cwd", "archived", "revision"))
        if not (
            isinstance(sid, str)
            and isinstance(key, str)
            and isinstance(cwd, str)
            and isinstance(archived, bool)
            and isinstance(revision, str)
        ):
            raise ValueError("bad cache scope")
        fp_raw = raw.get("fingerprint")
        fingerprint = None
        if fp_raw is not None:
            fingerprint = tuple((str(n), int(a), int(b), int(c)) for n, a, b, c in fp_raw)
        info_raw = raw.get("info")
        info = WorkspaceInfo.model_validate(info_raw) if info_raw is not None else None
        docs = [_doc_from_row(row, key, cwd, archived) for row in raw.get("docs", [])]
        n = len(docs)
        postings = _index_lists(raw.get("postings"), n)
        field_reps = _index_lists(raw.get("field_reps"), n)
        out.append(CachedScope(sid, key, cwd, archived, revision, fingerprint, docs, info, postings, field_reps))
    return out


def _index_lists(value: Any, n: int) -> dict[str, list[int]] | None:
    """A ``term -> [index into docs]`` table from the cache, checked; None when absent."""
    if value is None:
        return None
    if not isinstance(value, dict) or not all(
        isinstance(t, str) and isinstance(lst, list) and (not lst or (min(lst) >= 0 and max(lst) < n))
        for t, lst in value.items()
    ):
        raise ValueError("bad cache table")
    return value


def load(directory: Path) -> list[CachedScope] | None:
    """The cached scopes, or None when there is no usable cache (missing, damaged, other version)."""
    try:
        data = (directory / CACHE_FILE).read_bytes()
    except OSError:
        return None
    try:
        return decode(data)
    except (ValueError, TypeError, KeyError):  # pydantic's ValidationError is a ValueError
        return None


def save(directory: Path, scopes: Iterable[CachedScope]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    write_atomic(directory / CACHE_FILE, encode(scopes))
