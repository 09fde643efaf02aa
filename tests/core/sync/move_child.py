"""Run one move in a child process; DSH_MOVE_KILL_AT names the stage at which it SIGKILLs itself."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from core.store.fs import FileStore
from core.sync.move import apply_move, plan_move
from core.sync.review import Resolution

if __name__ == "__main__":
    root, key, to = sys.argv[1], sys.argv[2], sys.argv[3]
    store = FileStore(Path(root))
    plan = plan_move(store, key, to)
    kill_at = os.environ.get("DSH_MOVE_KILL_AT", "")

    def step(stage: str) -> None:
        if stage == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    apply_move(store, plan, {i.id: Resolution(choice="theirs") for i in plan.conflicts}, step=step)
