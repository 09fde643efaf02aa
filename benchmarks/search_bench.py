"""Search benchmark on the reference workload (PRODUCT.md §8): index build, query latency vs ``rg``,
incremental update after a commit.

Run: ``python benchmarks/search_bench.py [--root DIR] [--reps N]``. Without ``--root`` the workload
(100 workspaces x 100 records + ~20 KB GLOBAL.md) is generated into a temp dir first. Prints figures;
asserts nothing (targets: query p95 <= 10 ms, >= 10x faster than ``rg -i -l``, incremental <= 20 ms).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``core`` and ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.workload import generate_workload, workspace_cwd
from core.models import PutOp, Record
from core.search import SearchIndex
from core.store.fs import FileStore

QUERIES: tuple[str, ...] = (
    # English words, compounds, phrases, as-you-type prefixes
    "pnpm",
    "electron",
    "electron-builder",
    "lockfile committed",
    "postgres 5433",
    "docker compose",
    "ISO-8601 timestamp",
    '"feature flags"',
    "redis ttl session",
    "notari",
    "request_id",
    "release changelog conventional commits",
    # Chinese
    "打包为什么慢",
    "数据库迁移",
    "回滚",
    "部署时间",
    "包",
    # mixed script
    "用 pnpm 打包",
    "electron 公证",
    "CI 缓存",
)


class TimedStore:
    """Passes calls through to the store and adds up the time spent in them."""

    def __init__(self, inner: FileStore) -> None:
        self.inner = inner
        self.seconds = 0.0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr):
            return attr

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return attr(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t0

        return timed


def pct(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = max(0, min(len(ordered) - 1, round(p / 100.0 * (len(ordered) - 1))))
    return ordered[k]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def timeit(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def backdate(root: Path, seconds: float = 3600.0) -> None:
    """Make the workload look written an hour ago, as real memory is (see index.py racy rule)."""
    past = time.time() - seconds
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            os.utime(os.path.join(dirpath, f), (past, past))


def rg_command() -> str | None:
    return shutil.which("rg")


def run_rg(rg: str, root: Path, query: str) -> float:
    pattern = query.strip('"')
    t0 = time.perf_counter()
    subprocess.run(
        [rg, "-i", "-l", "-F", "--", pattern, str(root / "workspaces"), str(root / "GLOBAL.md")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - t0


def phase(root: Path, mode: str) -> dict[str, float]:
    """One measurement in this (fresh) process; printed as JSON by ``--phase``."""
    t0 = time.perf_counter()
    store = TimedStore(FileStore(root))
    index = SearchIndex(store)  # (cold: its folder was just removed)
    stats = index.refresh()
    total = time.perf_counter() - t0
    out = {
        "total": total,
        "store": store.seconds,
        "docs": float(index.doc_count),
        "from_cache": float(stats.from_cache),
        "reread": float(stats.scopes_reread),
    }
    if mode == "warm":
        out["first_queries"] = timeit(lambda: [index.search(q) for q in QUERIES])
    return out


def run_phase(root: Path, mode: str) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--root", str(root), "--phase", mode],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, help="existing workload root (default: generate one)")
    parser.add_argument("--reps", type=int, default=20, help="runs of each query (default 20)")
    parser.add_argument("--rg-reps", type=int, default=3, help="runs of each rg query (default 3)")
    parser.add_argument("--commits", type=int, default=20, help="incremental-update samples (default 20)")
    parser.add_argument("--phase", choices=("cold", "warm"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase:
        print(json.dumps(phase(args.root, args.phase)))
        return 0

    tmp: str | None = None
    if args.root is None:
        tmp = tempfile.mkdtemp(prefix="dsh-search-bench-")
        root = Path(tmp) / "memory"
        t = timeit(lambda: generate_workload(root))
        print(f"workload: generated in {t:.1f} s under {root}")
    else:
        root = args.root
    backdate(root)
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cpus, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")

    try:
        # --- build -------------------------------------------------------------------------
        for old in (root / ".manager" / "cache").glob("search-*"):  # (the index only)
            shutil.rmtree(old, ignore_errors=True)
        cold = run_phase(root, "cold")
        print(
            f"index build cold : {ms(cold['total'])}  ({cold['docs']} docs, fresh process, no cache;"
            f" of which store list+read {ms(cold['store'])}, tokenize+index {ms(cold['total'] - cold['store'])})"
        )
        warm = run_phase(root, "warm")
        print(
            f"index open warm : {ms(warm['total'])}  (fresh process, persisted index;"
            f" {warm['from_cache']} scopes trusted, {warm['reread']} re-read);"
            f" first run of the {len(QUERIES)} queries: {ms(warm['first_queries'])}"
        )
        store = TimedStore(FileStore(root))
        index = SearchIndex(store, cache_dir=False)
        index.refresh()
        index2 = SearchIndex(FileStore(root), cache_dir=False)
        t_same = timeit(index2.refresh)
        print(f"index build, same process again (file system cache warm, no persisted index): {ms(t_same)}")
        t_noop = [timeit(index.refresh) for _ in range(5)]
        print(f"refresh, nothing changed: p50 {ms(statistics.median(t_noop))}  (one stat per scope folder)")

        # --- queries -----------------------------------------------------------------------
        for q in QUERIES:  # warm-up: the page cache
            index.search(q)
        per_query: dict[str, list[float]] = {q: [] for q in QUERIES}
        for _ in range(args.reps):
            for q in QUERIES:
                per_query[q].append(timeit(lambda q=q: index.search(q, limit=20)))  # type: ignore[misc]
        all_times = [t for ts in per_query.values() for t in ts]
        print(
            f"query ({len(QUERIES)} queries x {args.reps}): p50 {ms(pct(all_times, 50))}"
            f"  p95 {ms(pct(all_times, 95))}  max {ms(max(all_times))}"
        )

        rg = rg_command()
        rg_times: dict[str, list[float]] = {}
        if rg is None:
            print("rg: not installed (apt-get install -y ripgrep); no comparison")
        else:
            for q in QUERIES:
                rg_times[q] = [run_rg(rg, root, q) for _ in range(args.rg_reps)]
            rg_all = [t for ts in rg_times.values() for t in ts]
            print(f"rg -i -l (same queries, same files): p50 {ms(pct(rg_all, 50))}  p95 {ms(pct(rg_all, 95))}")
        print(f"{'query':42} {'hits':>6} {'p50':>11} {'p95':>11} {'rg p50':>11} {'speedup':>8}")
        speedups: list[float] = []
        for q in QUERIES:
            res = index.search(q, limit=20)
            p50, p95 = pct(per_query[q], 50), pct(per_query[q], 95)
            line = f"{q:42} {res.total_matches:6d} {ms(p50)} {ms(p95)}"
            if q in rg_times:
                r50 = pct(rg_times[q], 50)
                speedups.append(r50 / p50)
                line += f" {ms(r50)} {r50 / p50:7.1f}x"
            print(line)
        if speedups:
            print(f"speedup vs rg per query: min {min(speedups):.1f}x  median {statistics.median(speedups):.1f}x")

        # --- incremental update after one commit -------------------------------------------
        fs = FileStore(root)
        t_apply: list[float] = []
        t_refresh: list[float] = []
        t_keyed: list[float] = []
        nonce = time.time_ns()  # every run commits new bytes, also on a reused --root
        index3 = SearchIndex(FileStore(root), cache_dir=False)
        index3.refresh()
        for i in range(args.commits):
            snap = fs.find_workspace(workspace_cwd(i % 100))
            if snap is None:
                continue
            record = Record(
                name=f"bench-commit-{i:03d}",
                description="Benchmark commit",
                type="project",
                body=f"\nIncremental update number {i} (run {nonce}): 增量更新 zebra{i}r{nonce}.\n",
            )
            new = fs.commit(snap.key, [PutOp(record=record)], snap.revision)
            t_apply.append(timeit(lambda new=new: index2.apply(new)))  # type: ignore[misc]
            t_keyed.append(timeit(lambda key=snap.key: index3.refresh(keys=[key])))  # type: ignore[misc]
            t_refresh.append(timeit(index.refresh))  # folder stamps, re-read the one scope
            for ix in (index, index2, index3):
                # (a word of this run only: other benchmarks commit into the same reused workloads)
                assert [h.name for h in ix.search(f"zebra{i}r{nonce} ").hits] == [record.name]
        # The workload draws every body from 27 sentences, so each query of the target set matches
        # 20-70% of all records; the committed words are its only selective terms.
        t_sel = [timeit(lambda i=i: index.search(f"zebra{i}r{nonce} 增量", limit=20)) for i in range(args.commits)]  # type: ignore[misc]
        print(
            f"selective queries (a word only one record has + a CJK bigram; not the target set):"
            f" p50 {ms(pct(t_sel, 50))}  p95 {ms(pct(t_sel, 95))}"
        )
        print(f"incremental after one commit, apply(snapshot): p50 {ms(pct(t_apply, 50))}  p95 {ms(pct(t_apply, 95))}")
        print(
            f"incremental after one commit, refresh(keys=[key]): p50 {ms(pct(t_keyed, 50))}"
            f"  p95 {ms(pct(t_keyed, 95))}  (stat + re-read of that scope through the store)"
        )
        print(
            f"incremental after one commit, refresh()      : p50 {ms(pct(t_refresh, 50))}"
            f"  p95 {ms(pct(t_refresh, 95))}  (folder stamps of every scope, then the one changed scope)"
        )
        load = os.getloadavg()
        print(f"machine load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
