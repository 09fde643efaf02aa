"""What every tab is given: the store, the task runner, the dialogs seam, paths and settings access.

Built once in ``gui/app.py`` (or by a test) and passed to constructors; there are no singletons.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.store.api import MemoryStore
from gui.dialogs import Dialogs
from gui.root_caches import RootCaches
from gui.tasks import TaskRunner
from gui.typing_pace import TypingPace


@dataclass
class AppContext:
    store: MemoryStore
    runner: TaskRunner
    dialogs: Dialogs
    root: Path
    sessions_root: Path
    dsh_home: Path
    search: Any = None  # core.search index when available (issue 3); None hides the search box
    typing: TypingPace = field(default_factory=TypingPace)  # workers step aside while the user types
    root_caches: RootCaches = field(default_factory=RootCaches)  # handed on by root switches: reopen warm
