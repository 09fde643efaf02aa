"""The load meter: what an agent loads at start in a workspace (``GLOBAL.md`` + ``MEMORY.md``).

Bytes are exact; tokens are an estimate (there is no one tokenizer): about four characters per
token for Latin text and one token per CJK character, which is close to what DeepSeek's and
OpenAI's tokenizers give for mixed English/Chinese notes. A workspace whose start-up load passes the
warning threshold (Settings) is flagged: its index is worth pruning.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from core.errors import CancelledError, DshMemoryError
from core.models import WorkspaceSnapshot
from core.store.api import MemoryStore

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
DEFAULT_WARNING_TOKENS = 8_000


def estimate_tokens(text: str) -> int:
    cjk = len(_CJK.findall(text))
    rest = len(text) - cjk
    return cjk + (rest + 3) // 4


@dataclass(frozen=True)
class Load:
    """The start-up load of one workspace."""

    global_bytes: int
    index_bytes: int
    tokens: int
    warning_tokens: int

    @property
    def bytes(self) -> int:
        return self.global_bytes + self.index_bytes

    @property
    def over(self) -> bool:
        return self.tokens > self.warning_tokens


def start_load(
    global_text: str, snapshot: WorkspaceSnapshot | None, *, warning_tokens: int = DEFAULT_WARNING_TOKENS
) -> Load:
    index = snapshot.index_text if snapshot is not None else ""
    return Load(
        global_bytes=len(global_text.encode("utf-8")),
        index_bytes=len(index.encode("utf-8")),
        tokens=estimate_tokens(global_text) + estimate_tokens(index),
        warning_tokens=warning_tokens,
    )


@dataclass(frozen=True)
class WorkspaceLoad:
    """One row of the load meter: a workspace and what an agent loads when it starts there."""

    key: str
    cwd: str
    records: int
    load: Load

    @property
    def index_share(self) -> float:
        """The part of the load that is the workspace's own index (0-1): the part pruning can shrink."""
        return self.load.index_bytes / self.load.bytes if self.load.bytes else 0.0


def root_loads(
    store: MemoryStore, *, warning_tokens: int = DEFAULT_WARNING_TOKENS, cancelled: Callable[[], bool] = lambda: False
) -> list[WorkspaceLoad]:
    """Every active workspace's start-up load, heaviest first (reads GLOBAL.md once).

    A workspace that cannot be read is left out (the status bar's problems say why)."""
    global_text = store.read_global().text
    out: list[WorkspaceLoad] = []
    for info in store.list_workspaces():
        if cancelled():
            raise CancelledError("The load meter was cancelled.")
        try:
            snapshot = store.read_workspace(info.key)
        except DshMemoryError:
            continue
        load = start_load(global_text, snapshot, warning_tokens=warning_tokens)
        out.append(WorkspaceLoad(info.key, info.cwd, len(snapshot.records()), load))
    return sorted(out, key=lambda w: (-w.load.tokens, w.cwd))
