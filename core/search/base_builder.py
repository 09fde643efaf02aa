"""Writes the term-major base (core/search/termbase.py) of a memory root, in a process of its own.

Building the base reads every persisted scope and merges its postings: at 100,000 records that is
tens of seconds of pure Python. A one-shot CLI search should not wait for it, and a window should
not run it under its interpreter lock while the user types. So whoever sees that the base is
wanted (``SearchIndex.base_wanted()``: a CLI search, the window's warm-up) starts this module
detached (:func:`spawn`), the way ``git gc --auto`` detaches: it lowers its priority, takes the
cache's build lock without waiting (a second builder just exits), brings the persisted rows up to
date, writes the base, and exits. Readers pick the new base up at their next refresh; until then
they search segment by segment, exactly as before. It writes nothing but the search cache under
``<root>/.manager/cache`` (derived data the index owns), and a failure leaves the cache as it was.

Run by hand: ``python -m core.search.base_builder ROOT``.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

LOCK_FILE = "base-build.lock"


def spawn(root: Path) -> bool:
    """Start a detached builder for ``root`` (never waits for it); False when it could not start."""
    try:
        subprocess.Popen(  # (our own interpreter and module, no shell)
            [sys.executable, "-m", "core.search.base_builder", str(root)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # (outlives the CLI call; a Ctrl-C there doesn't reach it)
            close_fds=True,
            cwd=str(Path(__file__).resolve().parents[2]),  # (so ``core`` imports from a checkout too)
        )
    except OSError:
        return False
    return True


def build(root: Path) -> bool:
    """Bring the persisted index of ``root`` up to date and write its base, unless another builder
    holds the lock. True when this call wrote a base."""
    from filelock import FileLock, Timeout

    from core.search import SearchIndex
    from core.store.fs import FileStore

    cache_dir = root / ".manager" / "cache"
    if not cache_dir.is_dir():
        return False
    try:
        with FileLock(str(cache_dir / LOCK_FILE), timeout=0):
            index = SearchIndex(FileStore(root))
            index.refresh()
            return index.build_base()
    except Timeout:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m core.search.base_builder ROOT", file=sys.stderr)
        return 2
    with contextlib.suppress(OSError):
        os.nice(10)  # (background work: the window and the user's shell come first)
    build(Path(args[0]))  # (nothing to do, or another builder at work: fine too)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
