"""The store's rules over bytes, written once: names, keys, record entries, scope.json, history ids,
secrets, and the value types a transaction carries (:class:`HistoryItem`, :class:`ScopeChange`).

Pure functions and constants (no store, no disk): the store core, every backend and the journal
share them, so a rule such as "a record name is at most 128 bytes" has one home.

History limits: the last :data:`HISTORY_MAX_VERSIONS` versions per record, none older than
:data:`HISTORY_MAX_AGE` (pruned on writes, hidden from listings once expired).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from core.errors import InvalidRecordError, NotFoundError, SecretRefusedError
from core.fingerprint import content_hash
from core.keys import workspace_key
from core.models import HistoryEntry, Origin, Record, RecordEntry, Revision
from core.records import SCOPE_FILE, parse_record
from core.store.scope_files import IndexItems
from core.store.stamps import is_key_name

HISTORY_MAX_VERSIONS = 20
HISTORY_MAX_AGE = timedelta(days=90)
MAX_GLOBAL_BYTES = 1024 * 1024
GLOBAL_SCOPE = "global"
"""Scope id of GLOBAL.md in locks, journal and history (no workspace key can be this: keys end in a hash)."""
NOT_REGULAR_PREFIX = "not a regular file"
MAX_NAME_BYTES = 128
"""Longest record name: every file name derived from it (history ids add 56 bytes, staging and temp
files fewer) then stays far under the 255-byte limit of common file systems."""
YAML_ALIAS_REASON = (
    "its frontmatter uses YAML anchors or aliases (&name / *name); records may not contain them "
    "(they can expand exponentially). Write the values out"
)


def yaml_has_aliases(text: str) -> bool:
    """True if YAML ``text`` contains an anchor or alias. Linear: tokens are scanned, never expanded."""
    if "&" not in text and "*" not in text:
        return False  # the common case: no token scan at all
    import yaml

    try:
        for token in yaml.scan(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if isinstance(token, yaml.AnchorToken | yaml.AliasToken):
                return True
    except yaml.YAMLError:
        return False  # not YAML: the parser reports it
    return False


def frontmatter_text(data: bytes) -> str:
    """The frontmatter of a record's bytes (between the opening and the closing ``---``), or ''."""
    head = data[: 256 * 1024 + 8].decode("utf-8", "replace")
    if not head.startswith("---"):
        return ""
    end = head.find("\n---", 3)
    return head[3:] if end < 0 else head[3:end]


def _may_have_aliases(data: bytes) -> bool:
    """False when the alias check can't find anything: no ``&`` or ``*`` in the first 64 KiB, or
    none in the bytes ``frontmatter_text`` would decode. Bytes suffice: UTF-8 never uses ``&``,
    ``*`` or ``\n---`` inside a multi-byte character, and the "replace" decoding keeps every ASCII
    byte. (Most records have ``**bold**`` in their body and none in their frontmatter: no decode.)"""
    head = data[:65536]
    if b"&" not in head and b"*" not in head:
        return False
    if not data.startswith(b"---"):
        return False  # frontmatter_text gives ""
    limit = 256 * 1024 + 8
    end = data.find(b"\n---", 3, limit)
    front = data[3:end] if end >= 0 else data[3:limit]
    return b"&" in front or b"*" in front


def name_problem(name: str) -> str | None:
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME_BYTES:
        return (
            f"the name is {size} bytes long; the limit is {MAX_NAME_BYTES} bytes "
            "(so that its history and staging file names fit the file system)"
        )
    return None

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)




def check_key(key: str) -> str:
    """A workspace key as a single safe path component (no traversal)."""
    if not is_key_name(key):
        raise NotFoundError(f"No workspace with key {key!r}. Run `dsh-memory workspaces` to list the keys.")
    return key


def entry_from_bytes(file_name: str, data: bytes, mtime_ns: int = 0) -> RecordEntry:
    """Parse one regular file into a RecordEntry (valid, or invalid with every reason).

    A frontmatter with YAML anchors/aliases is never handed to the YAML parser (an alias bomb would
    hold the scope's lock for an hour); an over-long name is reported (never rewritten).
    """
    record: Record | None = None
    reasons: tuple[str, ...] = ()
    if _may_have_aliases(data) and yaml_has_aliases(frontmatter_text(data)):
        reasons = (YAML_ALIAS_REASON,)
    if not reasons:
        try:
            record = parse_record(file_name, data)
        except InvalidRecordError as exc:
            record, reasons = None, exc.reasons
    long_name = name_problem(file_name.removesuffix(".md"))
    if long_name is not None:
        record, reasons = None, (*reasons, long_name)
    return RecordEntry(
        file_name=file_name,
        record=record,
        invalid_reasons=reasons,
        revision=content_hash(data),
        size=len(data),
        mtime_ns=mtime_ns,
    )


def special_entry(
    file_name: str, reason: str, identity: str, size: int = 0, mtime_ns: int = 0
) -> RecordEntry:
    """An entry that is not a regular file (directory, symlink): invalid and never touched."""
    return RecordEntry(
        file_name=file_name,
        record=None,
        invalid_reasons=(f"{NOT_REGULAR_PREFIX}: {reason}",),
        revision=content_hash(identity.encode("utf-8", "surrogateescape")),
        size=size,
        mtime_ns=mtime_ns,
    )


@dataclass(frozen=True)
class HistoryItem:
    """A history entry to write as part of a transaction."""

    entry: HistoryEntry
    data: bytes
    source: str  # the file whose previous bytes these are (``<name>.md`` or ``GLOBAL.md``)


@dataclass
class ScopeChange:
    """A transaction on one workspace scope: files to write (bytes) or delete (None), history to keep."""

    key: str
    files: dict[str, bytes | None] = field(default_factory=dict)
    history: list[HistoryItem] = field(default_factory=list)
    old: dict[str, bytes | None] = field(default_factory=dict)
    """The bytes read under the lock for each file in ``files`` (None: absent). A backend must never
    displace anything else: a file that differs at the moment of the write is a ConflictError."""
    index_items: IndexItems | None = None
    """MEMORY.md's items for the state after the change (so the backend need not recompute them)."""
    index_bytes: bytes | None = None
    """Their rendering: what MEMORY.md holds after the change unless it is blocked."""


def parse_scope_json(key: str, data: bytes | None) -> tuple[str, datetime | None, str | None]:
    """``(cwd, created, problem)`` from scope.json bytes."""
    if data is None:
        return "", None, f"{SCOPE_FILE} is missing; the workspace's folder is unknown"
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return "", None, f"{SCOPE_FILE} is not valid JSON ({exc})"
    if not isinstance(obj, dict):
        return "", None, f"{SCOPE_FILE} is not a JSON object"
    cwd = obj.get("cwd")
    created = None
    raw_created = obj.get("created")
    if isinstance(raw_created, str):
        try:
            created = datetime.fromisoformat(raw_created)
        except ValueError:
            created = None
    if not isinstance(cwd, str) or not cwd:
        return "", created, f"{SCOPE_FILE} has no 'cwd'"
    if workspace_key(cwd) != key:
        return cwd, created, f"{SCOPE_FILE} cwd {cwd!r} belongs to key {workspace_key(cwd)}, not this folder"
    return cwd, created, None


def render_scope_json(cwd: str, created: datetime) -> bytes:
    doc = {"cwd": cwd, "created": created.isoformat(timespec="seconds")}
    return (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


HISTORY_STAMP = "%Y%m%dT%H%M%S%fZ"
HISTORY_ID_RE = re.compile(r"^(\d{8}T\d{12}Z)-(overwrite|delete)-([0-9a-f]{16})-(.+)$")
"""The part of a history id after ``<scope>/``: UTC time, reason, revision of the bytes, record name."""


def history_id(scope: str, when: datetime, name: str, reason: str, revision: Revision) -> str:
    stamp = when.astimezone(UTC).strftime(HISTORY_STAMP)
    return f"{scope}/{stamp}-{reason}-{revision}-{name}"


def _find_secrets(texts: Sequence[tuple[str, str]]) -> list[str]:
    try:  # core.secrets is written alongside the store; tolerate its absence in a partial checkout
        from core import secrets
    except ImportError:  # pragma: no cover
        return []
    found: list[str] = []
    for label, text in texts:
        hits = secrets.find_secrets(text)
        if hits:
            found.extend(f"{label}: {d}" for d in secrets.describe(hits))
    return found


def check_secrets(texts: Sequence[tuple[str, str]], origin: Origin, allow_secrets: bool) -> None:
    found = _find_secrets(texts)
    if not found:
        return
    where = "; ".join(found)
    if origin == "automatic":
        raise SecretRefusedError(
            f"Refused: automatic changes may not contain credential-shaped values ({where}). "
            "Nothing was written.",
            found,
        )
    if not allow_secrets:
        raise SecretRefusedError(
            f"This change contains credential-shaped values ({where}). Remove them, or save anyway "
            "with --allow-secrets if they are not real credentials. Nothing was written.",
            found,
        )


