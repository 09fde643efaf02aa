"""Run one sync in a child process (the kill tests set DSH_SYNC_KILL_AT to stop it with SIGKILL)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from core.store.fs import FileStore
from core.sync.engine import run_sync

if __name__ == "__main__":
    root, remote = sys.argv[1], sys.argv[2]
    result = run_sync(FileStore(Path(root)), remote)
    print(json.dumps({"status": result.status}))
