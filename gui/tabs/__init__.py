"""The window's tabs. Every tab is a QWidget built as ``Tab(ctx)`` and follows this protocol.

Required:
    ``refresh() -> None``              reload from the store off the GUI thread. The window calls it once
                                       after building every tab (the first load; constructors don't
                                       load), then on every change on disk (watcher) and on F5. Must
                                       keep the selection and never overwrite unsaved edits.
    ``has_unsaved_changes() -> bool``  True while closing would lose work.
Optional (the main window calls them when present):
    ``save() -> None``                 Ctrl+S.
    ``focus_search() -> None``         Ctrl+F: focus the tab's search/filter box.
    ``shutdown() -> None``             the window is closing: cancel work, stop timers.
    ``tab_title() -> str``             title shown in the tab bar (else the default name).
    ``warm_up() -> None``              start-up is done (first status line shown): start slow one-off
                                       preparations on the runner (e.g. the credential scanner).

Consolidation, Recycle Bin and Settings are built the first time they are shown (``main_window.LAZY_TABS``);
their constructor and first ``refresh()`` run then.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class Tab(Protocol):
    def refresh(self) -> None: ...

    def has_unsaved_changes(self) -> bool: ...


TAB_ORDER: tuple[tuple[str, str], ...] = (
    ("global", "Global"),
    ("workspace", "Workspace"),
    ("consolidation", "Session Consolidation"),
    ("recycle", "Recycle Bin"),
    ("settings", "Settings"),
)
