"""Observation handles: what an agent was shown, carried by the agent, checked by the server.

Every MCP read answers with an opaque ``observed`` handle; every write must send one back. The
handle is minted here and is the only state a write depends on, so the server keeps no
per-connection memory of what an agent read (the 2026-07-28 protocol is stateless, HTTP sessions
come and go, sub-agents share a connection, and a cancelled request never reaches the agent, so
its handle is never handed out).

A handle binds three things and is tamper-evident: the memory root (an HMAC key kept in the root,
``.manager/mcp-handle.key``, see :func:`handle_key`), the workspace (its key is part of the signed message) and the
revisions the agent was shown (the workspace's; Global's only when it was shown whole). It is
``obs1_`` + base64url(flags | workspace revision | Global revision | 16 bytes of HMAC-SHA256):
about 60 characters, no path, key or readable revision in it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Literal

from core.errors import ConflictError, StorageError
from core.models import Revision
from core.store.api import MemoryStore
from core.store.files import MCP_HANDLE_KEY

PREFIX = "obs1_"
_MAC_BYTES = 16
_REV_BYTES = 8
_HEX16 = re.compile(r"^[0-9a-f]{16}$")

RefusalReason = Literal["missing", "forged", "stale"]

KEY_BYTES = 32


def handle_key(store: MemoryStore) -> bytes:
    """This root's 32-byte HMAC key, created on first use. A file of the wrong size is replaced (the
    handles it signed stop verifying, which only makes agents read again)."""
    import secrets

    key_file = store.files(MCP_HANDLE_KEY)
    data = key_file.read_bytes()
    if data is not None and len(data) == KEY_BYTES:
        return data
    key_file.write("", secrets.token_bytes(KEY_BYTES))
    data = key_file.read_bytes()  # what is on disk now (another server may have won)
    if data is None or len(data) != KEY_BYTES:
        raise StorageError(f"Could not keep {MCP_HANDLE_KEY.folder} in the memory root.")
    return data


READ_AGAIN = (
    "Nothing was written. Read it again (memory_recall, memory_search, memory_read or memory_index), "
    "then redo your change with the `observed` handle that answer gives you."
)


class HandleRefusedError(ConflictError):
    """A write whose ``observed`` handle is missing, not ours (forged, damaged, another root or
    workspace) or stale. ``reason`` says which; the message is the same "read again" for all."""

    def __init__(self, message: str, current_revision: Revision, *, reason: RefusalReason) -> None:
        super().__init__(message, current_revision)
        self.reason: RefusalReason = reason


@dataclass(frozen=True)
class Observed:
    """What a valid handle says the agent was shown (revisions as 8 raw bytes each)."""

    workspace: bytes
    global_: bytes | None

    def saw_workspace(self, revision: Revision) -> bool:
        return hmac.compare_digest(self.workspace, rev_bytes(revision))

    def saw_global(self, revision: Revision) -> bool:
        return self.global_ is not None and hmac.compare_digest(self.global_, rev_bytes(revision))

    @property
    def workspace_hex(self) -> str:
        return self.workspace.hex()


def rev_bytes(revision: Revision) -> bytes:
    """A revision as 8 bytes (store revisions are 16 hex digits; anything else is hashed to 8)."""
    if _HEX16.match(revision):
        return bytes.fromhex(revision)
    return hashlib.blake2b(revision.encode("utf-8", "surrogateescape"), digest_size=_REV_BYTES).digest()


def _mac(key: bytes, scope_key: str, payload: bytes) -> bytes:
    message = b"dsh-memory observed/1\n" + scope_key.encode("utf-8") + b"\n" + payload
    return hmac.new(key, message, hashlib.sha256).digest()[:_MAC_BYTES]


def mint(key: bytes, scope_key: str, workspace: Revision, global_: Revision | None) -> str:
    """The handle for an answer showing ``workspace`` (and all of Global at ``global_``, if not None)."""
    flags = b"\x01" if global_ is not None else b"\x00"
    payload = flags + rev_bytes(workspace) + (rev_bytes(global_) if global_ is not None else bytes(_REV_BYTES))
    token = base64.urlsafe_b64encode(payload + _mac(key, scope_key, payload)).decode("ascii").rstrip("=")
    return PREFIX + token


def verify(key: bytes, scope_key: str, handle: object, current: Revision) -> Observed:
    """The observation a handle carries, if this root's key signed it for this workspace.

    Raises :class:`HandleRefusedError` (``missing`` or ``forged``) otherwise; staleness is the
    caller's check (it knows which scope the write changes)."""
    if not isinstance(handle, str) or not handle.strip():
        raise HandleRefusedError(
            "You did not pass the `observed` handle of a read of this memory. " + READ_AGAIN, current, reason="missing"
        )
    raw = handle.strip()
    payload = b""
    ok = False
    if raw.startswith(PREFIX):
        body = raw[len(PREFIX) :]
        try:
            data = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        except (ValueError, TypeError):
            data = b""
        if len(data) == 1 + 2 * _REV_BYTES + _MAC_BYTES:
            payload, mac = data[:-_MAC_BYTES], data[-_MAC_BYTES:]
            ok = payload[0] in (0, 1) and hmac.compare_digest(mac, _mac(key, scope_key, payload))
    if not ok:
        raise HandleRefusedError(
            "That `observed` handle was not issued by this memory server for this workspace (changed, "
            "copied from another workspace or memory, or made up). " + READ_AGAIN,
            current,
            reason="forged",
        )
    workspace = payload[1 : 1 + _REV_BYTES]
    global_ = payload[1 + _REV_BYTES :] if payload[0] == 1 else None
    return Observed(workspace=workspace, global_=global_)
