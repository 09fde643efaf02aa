"""The window's problems check (``store.inspect.check()``) in a child process, for a big root.

``check()`` parses every record of the root: ~30 s of pure-Python work at 100,000 records. On a
worker thread of the window that work holds the interpreter lock half the time the window wants it,
so every keystroke typed meanwhile took twice as long (issue 15). A child process has its own
interpreter lock: the window only waits for its answer. The child only reads (``check`` never
writes), and answers with the problems as JSON on stdout.

Small roots (below :data:`CHILD_MIN_BYTES`) are checked in-process as before: there a child's
start-up (~0.5 s of imports) would cost more than the check itself. Whatever goes wrong with the
child (no interpreter to start, a crash, unreadable output) falls back to the in-process check, so
the status line always gets an answer; a cancelled job kills the child.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from core.models import Problem
from core.store.api import MemoryStore
from core.store.fs import FileStore
from gui.tasks import JobControl

CHILD_MIN_BYTES = 4_000_000  # ~4,000 records of the reference workload: ~1 s of check in-process
_REPO = Path(__file__).resolve().parents[1]
_CHILD = (
    "import json, sys\n"
    "from core.store.fs import FileStore\n"
    "problems = FileStore(sys.argv[1]).inspect.check()\n"
    "sys.stdout.write(json.dumps([p.model_dump(mode='json') for p in problems]))\n"
)


def check_root(store: MemoryStore, total_bytes: int, *, control: JobControl) -> list[Problem]:
    """``store.inspect.check()``; in a child process when the root is a folder of at least
    :data:`CHILD_MIN_BYTES` (``total_bytes``: the status line's figure)."""
    if total_bytes >= CHILD_MIN_BYTES and isinstance(store, FileStore) and store.root is not None:
        problems = check_in_child(Path(store.root), control)
        if problems is not None:
            return problems
    control.raise_if_cancelled()
    return store.inspect.check()


def check_in_child(root: Path, control: JobControl) -> list[Problem] | None:
    """The problems a fresh process's ``FileStore(root).inspect.check()`` found; None if it gave no answer."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_REPO), env.get("PYTHONPATH", "")) if p)
    try:
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(root)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    except OSError:
        return None
    with child:  # closes the pipe, and waits for the child, whatever happens below
        try:
            while True:
                try:
                    out, _err = child.communicate(timeout=0.2)
                    break
                except subprocess.TimeoutExpired:
                    control.raise_if_cancelled()
        finally:
            if child.poll() is None:
                child.kill()
    if child.returncode != 0:
        return None
    try:
        return [Problem.model_validate(p) for p in json.loads(out)]
    except ValueError:
        return None
