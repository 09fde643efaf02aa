"""Value types of the usage ledger."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

Kind = Literal["loaded", "opened", "matched", "listed", "edited", "served", "unknown"]
KINDS: tuple[Kind, ...] = ("loaded", "opened", "matched", "listed", "edited", "served", "unknown")
# What "last used" means: the agent engaged with the record itself. Being listed by a glob or
# loaded with the start-up index says little about one record, so those never make it "used".
USED_KINDS: frozenset[str] = frozenset({"opened", "matched", "edited", "served"})
AccessKind = Literal["opened", "matched", "listed", "edited", "unknown"]


@dataclass(frozen=True)
class Access:
    """One path a tool call named (see :mod:`core.usage.tools`); not yet placed in the root."""

    kind: AccessKind
    path: str
    cwd: str | None
    pattern: str | None = None  # grep-like: what was searched for
    ignore_case: bool = False
    fixed: bool = False  # the pattern is a literal string
    recursive: bool = False  # a folder is searched/listed with everything under it
    glob: str | None = None  # a file-name filter (glob tools, rg -g, grep --include)


@dataclass(frozen=True)
class Use:
    """One use of one memory file. ``key`` is the workspace ("" for GLOBAL.md); ``name`` a record
    name, ``MEMORY.md`` or ``GLOBAL.md``. ``session`` is the DSH session id (MCP: "")."""

    key: str
    name: str
    kind: Kind
    tool: str
    time: int | None  # epoch ms
    session: str = ""
    seq: int = -1
    client: str = ""  # the MCP client that was served

    @property
    def when(self) -> datetime | None:
        return datetime.fromtimestamp(self.time / 1000, UTC) if self.time is not None else None


@dataclass(frozen=True)
class RecordUsage:
    """What the ledger knows about one memory file."""

    key: str
    name: str
    counts: dict[str, int] = field(default_factory=dict)  # kind -> uses
    sessions: dict[str, int] = field(default_factory=dict)  # kind -> distinct sessions (MCP: clients)
    followed: int = 0  # sessions that loaded the index and then opened this record
    last_used: int | None = None  # epoch ms of the newest use of a USED_KINDS kind
    last_seen: int | None = None  # epoch ms of the newest use of any kind
    recent: tuple[Use, ...] = ()  # newest first, at most MAX_RECENT

    @property
    def used(self) -> int:
        return sum(self.counts.get(k, 0) for k in USED_KINDS)

    def last_used_at(self) -> datetime | None:
        return datetime.fromtimestamp(self.last_used / 1000, UTC) if self.last_used is not None else None


@dataclass
class UpdateStats:
    """What one ledger update did (the CLI and the benchmark print it); filled in as it runs."""

    sessions_seen: int = 0
    sessions_read: int = 0
    sessions_kept: int = 0  # unchanged since counted: not read again
    sessions_waiting: int = 0  # live or recently written: counted once they are stable
    sessions_dropped: int = 0  # gone from the sessions folder since the last update
    tool_calls: int = 0  # tool/call + tool/code-dispatch events in the sessions read
    calls_parsed: int = 0  # of those, the ones that could name memory (the pre-filter passed)
    unknown_tools: dict[str, int] = field(default_factory=dict)
    uses_found: int = 0
    problems: dict[str, str] = field(default_factory=dict)  # session folder -> why it was not read
    seconds: float = 0.0
