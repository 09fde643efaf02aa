"""Sync benchmark (issue 28): prints figures, asserts nothing.

    python benchmarks/sync_bench.py [--workspaces 100] [--records 100] [--changed 100]

A 10k-record root (``benchmarks/workload.py``) is synced to a bare remote in a temp dir (first push,
reported apart), copied as a second machine that has synced once, then each side changes
``--changed`` different records (through the store, spread over 10 workspaces) and syncs:

- **A sends**: A commits and pushes its changes;
- **B merges**: B fetches A's, applies them through the store, commits the merge, pushes it
  (the target: <= 10 s);
- **A receives**: A applies B's changes;
- **no-op**: a sync with nothing to do, in-process and in a fresh interpreter (target <= 1 s);
- **purge**: one workspace deleted forever (the sync history rewritten here), then the sync that
  replaces the remote's branch (a forced push with a lease) and prunes the remote.

Git runs with a private HOME and no global config; nothing touches the network.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``core`` and ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.models import PutOp, Record
from core.store.fs import FileStore
from core.sync.engine import run_sync

REPO = Path(__file__).resolve().parents[1]


def _loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        return "?"


def _edit(store: FileStore, n: int, tag: str, offset: int) -> None:
    """Change ``n`` records spread over 10 workspaces (one commit per workspace)."""
    infos = store.list_workspaces(counts=False)[:10]
    per = max(1, n // len(infos))
    for i, info in enumerate(infos):
        snap = store.read_workspace(info.key)
        recs = [e.record for e in snap.entries if e.record is not None][offset : offset + per]
        ops = [PutOp(record=Record(**{**r.model_dump(), "body": r.body + f"\nEdited on {tag} ({i}).\n"})) for r in recs]
        store.commit(info.key, ops, snap.revision)


def _timed(label: str, store: FileStore, remote: str, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    result = run_sync(store, remote, env=env)
    dt = time.perf_counter() - t0
    print(f"{label:<28} {dt:7.2f} s   {result.status}: {len(result.received)} received, {len(result.sent)} sent")
    return dt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workspaces", type=int, default=100)
    parser.add_argument("--records", type=int, default=100)
    parser.add_argument("--changed", type=int, default=100)
    args = parser.parse_args(argv)
    from benchmarks.workload import generate_workload

    with tempfile.TemporaryDirectory(prefix="dsh-sync-bench-") as tmp_s:
        tmp = Path(tmp_s)
        home = tmp / "home"
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
               "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}
        remote = tmp / "remote.git"
        subprocess.run(["git", "init", "--bare", "-q", str(remote)], env=env, check=True)
        generate_workload(tmp / "a", args.workspaces, args.records)
        print(f"root: {args.workspaces} workspaces x {args.records} records; loadavg {_loadavg()}")
        a = FileStore(tmp / "a")
        _timed("first push (10k records)", a, str(remote), env)
        shutil.copytree(tmp / "a", tmp / "b", symlinks=True)  # B: a machine that synced once
        b = FileStore(tmp / "b")
        # A copy has new inodes: B's first sync re-reads every file once (its stat cache), as a real
        # second machine did on its own first sync. Reported apart; the figures below start warm.
        _timed("B's first sync after the copy", b, str(remote), env)
        _edit(a, args.changed, "a", 0)
        _edit(b, args.changed, "b", 50)
        _timed("A sends", a, str(remote), env)
        merge = _timed("B merges (target <= 10 s)", b, str(remote), env)
        _timed("A receives", a, str(remote), env)
        noop = _timed("no-op, in-process (<= 1 s)", a, str(remote), env)
        # A fresh `dsh-memory sync` (median of 3), and its floor: the interpreter alone, then the
        # interpreter with the imports a sync needs (the CLI, the store, the sync engine).
        def fresh_run(*args: str) -> float:
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                subprocess.run([sys.executable, *args], cwd=REPO, env=env, check=True, capture_output=True)
                times.append(time.perf_counter() - t0)
            return sorted(times)[1]

        fresh = fresh_run("-m", "core.cli.main", "--root", str(tmp / "a"), "sync")
        bare = fresh_run("-c", "pass")
        imports = fresh_run("-c", "import core.cli.main, core.cli.sync_commands, core.store.fs, core.sync.engine")
        print(f"{'no-op, fresh process':<28} {fresh:7.2f} s   (median of 3; interpreter start and imports included)")
        print(f"{'  of which: interpreter':<28} {bare:7.2f} s")
        print(f"{'  interpreter + imports':<28} {imports:7.2f} s   (the floor of any fresh-process sync)")
        # Delete forever through sync: one workspace purged (the sync history rewritten and pruned
        # here), then the sync that replaces the remote's branch and prunes the remote.
        from core.recycle import purge_workspace

        victim = a.list_workspaces(counts=False)[-1]
        a.recycle.archive(victim.key)
        t0 = time.perf_counter()
        sweep = purge_workspace(a, victim.key, victim.display_name)
        rewrite = time.perf_counter() - t0
        print(f"{'purge + history rewrite':<28} {rewrite:7.2f} s   (rewritten: {sweep.sync_history_rewritten})")
        _timed("sync after the purge", a, str(remote), env)
        print(f"loadavg after: {_loadavg()}")
        print(f"targets: merge {merge:.2f} s <= 10 s, no-op {noop:.2f} s <= 1 s (fresh process {fresh:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
