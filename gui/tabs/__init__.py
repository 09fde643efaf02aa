"""The window's tabs. Every tab is a :class:`gui.tabs.base.Tab` built as ``Tab(ctx)``.

Consolidation, Recycle Bin and Settings are built the first time they are shown
(``main_window.LAZY_TABS``); their constructor and first ``refresh()`` run then.
"""

from __future__ import annotations

TAB_ORDER: tuple[tuple[str, str], ...] = (
    ("global", "Global"),
    ("workspace", "Workspace"),
    ("consolidation", "Session Consolidation"),
    ("recycle", "Recycle Bin"),
    ("settings", "Settings"),
    ("maintenance", "Maintenance"),
)
