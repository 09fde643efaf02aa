"""What agents actually use: a usage ledger from DSH session logs and the MCP server (issue 30).

Public API::

    ledger = UsageLedger(store, sessions_root, quiet_seconds=DEFAULT_QUIET_SECONDS)
    ledger.update(rebuild=False, now=None, cancelled=..., progress=...) -> UpdateStats
        # reads new/changed stable sessions only; rebuild=True re-reads every log
    ledger.view() -> UsageView          # per (workspace key, name) RecordUsage; no update
    load_view(store) -> UsageView       # the same without a sessions folder (the stale queue, the window)
    note_served(store, workspace_key, names, tool, client)   # the MCP server's one call

Kinds of use (``KINDS``): loaded (GLOBAL.md / MEMORY.md injected at session start), opened,
matched ("seen in a search"), listed, edited (an agent wrote the file itself), served (MCP),
unknown (an unknown tool named the file). ``docs/usage.md`` has the rules.
"""

from core.usage.ledger import UsageLedger, load_view, note_served, usage_dir
from core.usage.paths import GLOBAL_KEY
from core.usage.types import KINDS, USED_KINDS, Kind, RecordUsage, UpdateStats, Use
from core.usage.view import MAX_RECENT, UsageView

__all__ = [
    "GLOBAL_KEY",
    "KINDS",
    "MAX_RECENT",
    "USED_KINDS",
    "Kind",
    "RecordUsage",
    "UpdateStats",
    "UsageLedger",
    "UsageView",
    "Use",
    "load_view",
    "note_served",
    "usage_dir",
]
