"""Store benchmark on the reference workload (PRODUCT.md §8): prints figures, asserts nothing.

    python benchmarks/store_bench.py [--workspaces 100] [--records 100] [--commits 200]

- **cold open**: a fresh interpreter opens the root and lists + parses every scope (imports excluded
  and reported apart);
- **warm reopen**: in that same interpreter, a new FileStore over the same root, handed the first
  one's ``StoreCaches`` (parse cache warm);
- **cold list_workspaces**: a fresh interpreter calls ``list_workspaces()`` then ``status()`` (what
  the GUI needs for its workspace list and status line), first with no persisted summary cache
  (``.manager/cache/workspace-summaries.json``, built by that run), then in another fresh
  interpreter with it warm (nothing parsed);
- **commit p50/p95**: single-record commits (CAS, history, MEMORY.md rebuilt) into a 1k-record
  workspace, alternating edits of existing records and new records; then edits into a 1k-record
  workspace whose records each already hold ``--history-versions`` versions (20: the limit, 20,000
  history files), as a long-used workspace does. The load average is printed around the commits.

Targets: cold <= 1.5 s, warm <= 0.3 s, cold list (summary cache warm) <= 0.1 s, commit p95 <= 30 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``core`` and ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.models import PutOp, Record
from core.store.caches import StoreCaches
from core.store.fs import FileStore


def generate(root: Path, workspaces: int, records: int) -> None:
    from benchmarks.workload import generate_workload

    generate_workload(root, workspaces=workspaces, records=records, seed=0)


def open_all(root: Path, caches: StoreCaches | None = None) -> tuple[int, int, StoreCaches]:
    store = FileStore(root, caches=caches)
    n_ws = n_rec = 0
    for info in store.list_workspaces():
        snap = store.read_workspace(info.key)
        n_ws += 1
        n_rec += len(snap.records())
    store.read_global()
    return n_ws, n_rec, store.caches


def child_open(root: Path) -> None:
    """Runs in a fresh interpreter: cold open, then warm reopen; prints JSON."""
    t0 = time.perf_counter()
    ws, recs, caches = open_all(root)
    cold = time.perf_counter() - t0
    warm_times = []
    for _ in range(3):
        t0 = time.perf_counter()
        open_all(root, caches)  # a reopen is warm when handed the first store's caches (explicitly)
        warm_times.append(time.perf_counter() - t0)
    print(json.dumps({"cold": cold, "warm": min(warm_times), "workspaces": ws, "records": recs}))


def child_list(root: Path) -> None:
    """Runs in a fresh interpreter: list_workspaces() then status(), counting scope parses."""
    parsed = 0
    load = FileStore._load_scope

    def counted(self: FileStore, key: str, archived: bool) -> object:
        nonlocal parsed
        parsed += 1
        return load(self, key, archived)

    FileStore._load_scope = counted  # type: ignore[method-assign,assignment]
    t0 = time.perf_counter()
    store = FileStore(root)
    infos = store.list_workspaces()
    t_list = time.perf_counter() - t0
    t1 = time.perf_counter()
    status = store.status()
    t_status = time.perf_counter() - t1
    print(
        json.dumps(
            {
                "list": t_list,
                "status": t_status,
                "parsed": parsed,
                "workspaces": len(infos),
                "records": sum(i.record_count for i in infos),
                "bytes": status.total_bytes,
            }
        )
    )


def run_child(flag: str, root: Path) -> tuple[dict[str, float], float]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, __file__, flag, str(root)], capture_output=True, text=True, check=True
    )
    total = time.perf_counter() - t0
    res: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return res, total


def bench_commits(tmp: Path, n_records: int, commits: int) -> tuple[list[float], list[float]]:
    """``(commit only, read + commit)`` times. "Commit only" chains on the snapshot each commit
    returns, as the GUI and consolidation do; "read + commit" re-reads the workspace first."""
    root = tmp / "commit-root"
    store = FileStore(root)
    snap = store.create_workspace("/home/bench/big-workspace")
    batch = [
        PutOp(
            record=Record(
                name=f"record-{i:04d}",
                description=f"Record {i} 记录 about builds",
                type="project",
                body=f"\nFact number {i}. 这是第 {i} 条记忆。" + " filler" * 120 + "\n",
            )
        )
        for i in range(n_records)
    ]
    for start in range(0, n_records, 200):
        snap = store.commit(snap.key, batch[start : start + 200], snap.revision)
    time.sleep(0.2)  # let the files age past the racy-timestamp window, as they would in real use
    snap = store.read_workspace(snap.key)
    only: list[float] = []
    with_read: list[float] = []
    for i in range(commits):
        name = f"new-record-{i:04d}" if i % 2 else f"record-{(i * 37) % n_records:04d}"
        rec = Record(name=name, description=f"Edited {i}", type="feedback", body=f"\nEdit {i}.\n")
        if i % 4 < 2:
            t0 = time.perf_counter()
            snap = store.commit(snap.key, [PutOp(record=rec)], snap.revision)
            only.append(time.perf_counter() - t0)
        else:
            t0 = time.perf_counter()
            current = store.read_workspace(snap.key)
            snap = store.commit(snap.key, [PutOp(record=rec)], current.revision)
            with_read.append(time.perf_counter() - t0)
    return only, with_read


def seed_history(store: FileStore, key: str, names: list[str], versions: int) -> int:
    """Give each record ``versions`` recent history versions (what a long-used workspace holds at
    the limit), written straight into ``.manager/history/<key>`` with the store's file names."""
    from datetime import UTC, datetime, timedelta

    from core.fingerprint import content_hash
    from core.store.base import HISTORY_STAMP

    folder = store.root / ".manager" / "history" / key
    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.now(UTC) - timedelta(days=1)
    count = 0
    for n, name in enumerate(names):
        for v in range(versions):
            data = f"---\nname: {name}\n---\nold version {v}\n".encode()
            stamp = (now - timedelta(minutes=v, microseconds=n)).strftime(HISTORY_STAMP)
            path = folder / f"{stamp}-overwrite-{content_hash(data)}-{name}.hist"
            path.write_bytes(data)
            path.chmod(0o400)
            count += 1
    return count


def bench_with_history(tmp: Path, n_records: int, commits: int, versions: int) -> tuple[list[float], int]:
    """Single-record edits into a workspace whose records each hold ``versions`` history versions."""
    root = tmp / "history-root"
    store = FileStore(root)
    snap = store.create_workspace("/home/bench/old-workspace")
    names = [f"record-{i:04d}" for i in range(n_records)]
    for start in range(0, n_records, 200):
        batch = [
            PutOp(record=Record(name=n, description=f"Record {n}", type="project", body="\nv0\n" + " filler" * 120))
            for n in names[start : start + 200]
        ]
        snap = store.commit(snap.key, batch, snap.revision)
    files = seed_history(store, snap.key, names, versions)
    time.sleep(0.2)
    snap = store.read_workspace(snap.key)
    times: list[float] = []
    for i in range(commits):
        name = names[(i * 37) % n_records]
        rec = Record(name=name, description=f"Edited {i}", type="feedback", body=f"\nEdit {i}.\n")
        t0 = time.perf_counter()
        snap = store.commit(snap.key, [PutOp(record=rec)], snap.revision)
        times.append(time.perf_counter() - t0)
    return times, files


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f}"


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspaces", type=int, default=100)
    parser.add_argument("--records", type=int, default=100)
    parser.add_argument("--commit-records", type=int, default=1000)
    parser.add_argument("--commits", type=int, default=200)
    parser.add_argument(
        "--history-versions", type=int, default=20, help="history versions per record for the last figure (0: skip)"
    )
    parser.add_argument("--child-open", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--child-list", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_open:
        child_open(args.child_open)
        return 0
    if args.child_list:
        child_list(args.child_list)
        return 0
    with tempfile.TemporaryDirectory(prefix="dsh-store-bench-") as tmp_name:
        tmp = Path(tmp_name)
        root = tmp / "memory"
        t0 = time.perf_counter()
        generate(root, args.workspaces, args.records)
        print(f"generated {args.workspaces} x {args.records} records in {time.perf_counter() - t0:.2f} s")
        time.sleep(0.2)
        for label in ("summary cache cold: built by this run", "persisted cache warm"):
            lst, total = run_child("--child-list", root)
            print(
                f"cold list_workspaces in a fresh process ({label}): {lst['list']:.3f} s, then status() "
                f"{lst['status']:.3f} s ({lst['parsed']} scope parses; {lst['workspaces']} workspaces, "
                f"{lst['records']} records, {lst['bytes']:,} bytes; interpreter incl. imports {total:.2f} s)"
            )
        res, total = run_child("--child-open", root)
        print(f"cold open (list + parse {res['workspaces']} workspaces, {res['records']} records): {res['cold']:.3f} s")
        print(f"  (fresh interpreter incl. imports: {total:.2f} s)")
        print(f"warm reopen (new FileStore, same process): {res['warm']:.3f} s")
        print(f"commits start: {load()}")
        only, with_read = bench_commits(tmp, args.commit_records, args.commits)
        for label, times in (("commit", only), ("read + commit", with_read)):
            print(
                f"single-record {label} into a {args.commit_records}-record workspace ({len(times)} runs): "
                f"p50 {pct(times, 50) * 1000:.1f} ms, p95 {pct(times, 95) * 1000:.1f} ms, "
                f"max {max(times) * 1000:.1f} ms, mean {statistics.mean(times) * 1000:.1f} ms"
            )
        if args.history_versions:
            times, files = bench_with_history(tmp, args.commit_records, args.commits // 2, args.history_versions)
            print(
                f"single-record commit, each record with {args.history_versions} history versions "
                f"({files:,} history files; {len(times)} runs): p50 {pct(times, 50) * 1000:.1f} ms, "
                f"p95 {pct(times, 95) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms"
            )
        print(f"commits end: {load()}")
        print("targets: cold <= 1.5 s, warm <= 0.3 s, cold list (cache warm) <= 0.1 s, commit p95 <= 30 ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
