"""Search at scale (issue 24, tantivy): the issue's figures at 1k, 10k and 100k records, with the load.

Run: ``python benchmarks/scale_bench.py [--sizes 1k,10k,100k] [--dir /tmp]``. Each size's workload
(``benchmarks/workload.py`` scaled: 10 / 100 / 1,000 workspaces x 100 records, plus a ~20 KB
GLOBAL.md) is generated once into ``<dir>/bench-<size>/memory`` and reused by later runs. Every
"fresh process" figure runs in a new process; ``rg -i -l`` runs the same queries over the same files
in the same run, for the ratios. The match counts are printed beside the previous engine's
(``benchmarks/old_engine_counts.json``, recorded before it was deleted). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``core`` and ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# The same queries as the 10k search benchmark, so every size is measured on the same work.
from benchmarks.search_bench import QUERIES

REPO = Path(__file__).resolve().parents[1]
SIZES = {"1k": 10, "10k": 100, "100k": 1000}  # workspaces of 100 records
OLD_COUNTS = Path(__file__).with_name("old_engine_counts.json")
MARKER = "bench-workload.json"


def pct(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[max(0, min(len(ordered) - 1, round(p / 100.0 * (len(ordered) - 1))))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:9.1f} ms"


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cpus)"


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def timeit(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def backdate(root: Path, seconds: float = 3600.0) -> None:
    """Make the workload look written an hour ago, as real memory is (fingerprints within two
    seconds of now are not trusted; see core/search/index.py)."""
    past = time.time() - seconds
    for dirpath, _dirs, files in os.walk(root, topdown=False):
        if "/.manager" in dirpath:
            continue
        for f in files:
            os.utime(os.path.join(dirpath, f), (past, past))
        os.utime(dirpath, (past, past))


def ensure_workload(base: Path, size: str) -> Path:
    root = base / f"bench-{size}" / "memory"
    want = {"workspaces": SIZES[size], "records": 100, "seed": 0}
    marker = root.parent / MARKER
    try:
        if json.loads(marker.read_text()) == want:
            return root
    except (OSError, ValueError):
        pass
    from benchmarks.workload import generate_workload

    shutil.rmtree(root, ignore_errors=True)
    t = timeit(lambda: generate_workload(root, SIZES[size], 100, 0))
    print(f"  workload generated in {t:.1f} s under {root}")
    marker.write_text(json.dumps(want))
    backdate(root)
    return root


def drop_cache(root: Path) -> None:
    from core.layout import cache_dir_of

    for p in Path(cache_dir_of(root)).glob("search-*"):
        shutil.rmtree(p) if p.is_dir() else p.unlink()


def du_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


# --- phases: each runs in its own fresh process and prints one JSON line ----------------------
def phase_cold(root: Path) -> dict[str, Any]:
    """A cold build: import, open, index every scope, commit (what the first search pays)."""
    t0 = time.perf_counter()
    from core.search import SearchIndex
    from core.store.fs import FileStore

    index = SearchIndex(FileStore(root))
    stats = index.refresh()
    wall, cpu = time.perf_counter() - t0, time.process_time()
    return {"wall": wall, "cpu": cpu, "main": time.thread_time(), "docs": stats.docs_total, "rss": rss_mb()}


def phase_reopen(root: Path, reps: int, commits: int) -> dict[str, Any]:
    t_import = time.perf_counter()
    from benchmarks.workload import workspace_cwd
    from core.models import PutOp, Record
    from core.search import SearchIndex
    from core.store.fs import FileStore

    out: dict[str, Any] = {"import": time.perf_counter() - t_import}
    index = SearchIndex(FileStore(root))
    t0 = time.perf_counter()
    stats = index.refresh()
    out["reopen"] = time.perf_counter() - t0
    out["from_cache"], out["reread"], out["docs"] = stats.from_cache, stats.scopes_reread, index.doc_count
    out["first"] = {q: timeit(lambda q=q: index.search(q, limit=20)) for q in QUERIES}  # type: ignore[misc]
    per_query: dict[str, list[float]] = {q: [] for q in QUERIES}
    for _ in range(reps):
        for q in QUERIES:
            per_query[q].append(timeit(lambda q=q: index.search(q, limit=20)))  # type: ignore[misc]
    out["repeated"] = per_query
    out["hits"] = {q: index.search(q, limit=20).total_matches for q in QUERIES}
    out["rss_queries"] = rss_mb()
    out["noop_refresh"] = [timeit(index.refresh) for _ in range(10)]
    out["deep_refresh"] = timeit(lambda: index.refresh(deep=True))
    fs = FileStore(root)
    nonce = time.time_ns()
    t_apply: list[float] = []
    t_keyed: list[float] = []
    t_commit: list[float] = []
    t_commit_again: list[float] = []
    workspaces = len(fs.list_workspaces(counts=False))
    for i in range(commits):
        snap = fs.find_workspace(workspace_cwd((i * 7) % workspaces))
        if snap is None:
            continue
        record = Record(
            name=f"bench-commit-{i:03d}",
            description="Benchmark commit",
            type="project",
            body=f"\nIncremental update number {i} (run {nonce}): 增量更新 zebra{i}.\n",
        )
        t1 = time.perf_counter()
        new = fs.commit(snap.key, [PutOp(record=record)], snap.revision)
        t_commit.append(time.perf_counter() - t1)
        t_apply.append(timeit(lambda new=new: index.apply(new)))  # type: ignore[misc]
        t_keyed.append(timeit(lambda key=snap.key: index.refresh(keys=[key])))  # type: ignore[misc]
        got = [h.name for h in index.search(f"zebra{i} ").hits]
        assert got == [record.name], (i, got, new.key)
        # The same workspace again: its files are now in this store's parse cache.
        again = Record(name=f"bench-again-{i:03d}", description="Benchmark commit", type="project", body="\nx\n")
        t1 = time.perf_counter()
        fs.commit(new.key, [PutOp(record=again)], new.revision)
        t_commit_again.append(time.perf_counter() - t1)
    # What the window does after a commit its watcher saw: note_changed([key]) then refresh().
    t_watched: list[float] = []
    index.refresh()
    time.sleep(0.2)  # (the commits above are out of the racy window: core/fingerprint.py)
    for i in range(commits):
        snap = fs.find_workspace(workspace_cwd((i * 11 + 3) % workspaces))
        if snap is None:
            continue
        record = Record(
            name=f"bench-watched-{i:03d}",
            description="Benchmark commit",
            type="project",
            body=f"\nSeen by the watcher {i} (run {nonce}): okapi{i}.\n",
        )
        fs.commit(snap.key, [PutOp(record=record)], snap.revision)
        t1 = time.perf_counter()
        index.note_changed({snap.key})
        index.refresh()
        t_watched.append(time.perf_counter() - t1)
        assert [h.name for h in index.search(f"okapi{i} ").hits] == [record.name]
    out.update(commit=t_commit, commit_again=t_commit_again, apply=t_apply, keyed=t_keyed, watched=t_watched)
    out["bare_commit"] = bare_commits(root, commits)
    out["rss_end"] = rss_mb()
    return out


def bare_commits(root: Path, n: int) -> list[float]:
    """The floor under apply(): tantivy adding one document to a fresh index with the same schema on
    the same disk and committing (its fsyncs), n times."""
    import tempfile

    import tantivy

    from core.search.engine import build_schema, register_analyzers

    times: list[float] = []
    with tempfile.TemporaryDirectory(dir=root.parent, ignore_cleanup_errors=True) as tmp:
        index = tantivy.Index(build_schema(), tmp)
        register_analyzers(index)
        for i in range(n):
            t0 = time.perf_counter()
            writer = index.writer(20_000_000, 1)
            writer.add_document(tantivy.Document(id=f"x{i}", text=f"bare commit {i}", mtime=i, doc=b"[]"))
            writer.commit()
            del writer
            times.append(time.perf_counter() - t0)
        del index
    return times


def run_phase(root: Path, name: str, **kw: Any) -> dict[str, Any]:
    args = [sys.executable, str(Path(__file__).resolve()), "--phase", name, "--root", str(root)]
    for k, v in kw.items():
        args += [f"--{k}", str(v)]
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"phase {name} failed:\n{proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def dsh_memory() -> list[str]:
    exe = REPO / ".venv" / "bin" / "dsh-memory"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "gui.launcher"]


def timed_run(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t0


def rg_argv(root: Path, query: str) -> list[str] | None:
    rg = shutil.which("rg")
    if rg is None:
        return None
    return [rg, "-i", "-l", "-F", "--", query.strip('"'), str(root / "workspaces"), str(root / "GLOBAL.md")]


def cli_vs_rg(
    root: Path, cli: list[str], runs: int, hits: dict[str, int] | None, old: dict[str, int]
) -> tuple[int, list[float], list[float]]:
    """The one-shot CLI and ``rg -i -l`` on each query (median of ``runs`` each): (slower, CLI times, rg times)."""
    print(f"  {'query':40} {'matches':>7} {'old':>6} {'CLI one-shot':>13} {'rg -i -l':>12} {'ratio':>7}")
    slower = 0
    cli_times: list[float] = []
    rg_times: list[float] = []
    for q in QUERIES:
        t_cli = statistics.median(timed_run([*cli, "--root", str(root), "search", q, "--all"]) for _ in range(runs))
        argv = rg_argv(root, q)
        rg_t = statistics.median(timed_run(argv) for _ in range(runs)) if argv is not None else float("nan")
        slower += t_cli >= rg_t
        cli_times.append(t_cli)
        rg_times.append(rg_t)
        n = -1 if hits is None else hits[q]
        print(f"  {q:40} {n:7d} {old.get(q, -1):6d} {ms(t_cli)} {ms(rg_t)} {rg_t / t_cli:6.2f}x")
    print(f"  one-shot CLI slower than rg for {slower} of {len(QUERIES)} queries")
    return slower, cli_times, rg_times


def cli_only(base: Path, size: str, runs: int, cli: list[str]) -> None:
    """``--cli-only``: the interpreter's own start-up, then the CLI-vs-rg table over an index brought
    up to date first (the figure the start-up work on the CLI's import path is judged by)."""
    root = ensure_workload(base, size)
    print(f"\n=== {size}: one-shot CLI ({' '.join(cli)}) vs rg -i -l, median of {runs}; {load()} ===")
    subprocess.run([*cli, "--root", str(root), "search", "x", "--all"], capture_output=True, check=False)
    python = str(Path(cli[0]).with_name("python")) if len(cli) == 1 else cli[0]
    for floor in (["-c", "pass"], ["-I", "-S", "-c", "pass"]):
        t = statistics.median(timed_run([python, *floor]) for _ in range(runs))
        print(f"  python {' '.join(floor):20} {ms(t)}")
    old = json.loads(OLD_COUNTS.read_text()).get(size, {}) if OLD_COUNTS.exists() else {}
    _, cli_times, rg_times = cli_vs_rg(root, cli, runs, None, old)
    med = f"{statistics.median(cli_times) * 1000:.1f} / {statistics.median(rg_times) * 1000:.1f} ms"
    print(f"  median over the queries, CLI / rg: {med}; machine at end: {load()}")


def bench_size(base: Path, size: str, reps: int, commits: int) -> dict[str, str]:
    """Runs one size, prints its figures, returns the cells of the closing table."""
    print(f"\n=== {size} records ({SIZES[size]} workspaces x 100 + 20 KB GLOBAL.md) ===")
    root = ensure_workload(base, size)
    print(f"  machine at start: {load()}")
    start_load = f"{os.getloadavg()[0]:.2f}"
    drop_cache(root)
    cold = run_phase(root, "cold")
    from core.layout import cache_dir_of

    disk = du_mb(Path(cache_dir_of(root)))
    print(
        f"  cold build, fresh process (imports, read every scope, index, commit): {ms(cold['wall'])}"
        f"  peak RSS {cold['rss']:.0f} MB  index on disk {disk:.1f} MB  ({cold['docs']} documents)"
    )
    r = run_phase(root, "reopen", reps=reps, commits=commits)
    print(
        f"  reopen (fresh process, first refresh): {ms(r['reopen'])}"
        f"  (imports {ms(r['import'])}, {r['from_cache']} scopes trusted)"
    )
    firsts = list(r["first"].values())
    print(f"  first query of each term: p50 {ms(pct(firsts, 50))}  p95 {ms(pct(firsts, 95))}  max {ms(max(firsts))}")
    all_t = [t for ts in r["repeated"].values() for t in ts]
    print(f"  repeated queries ({len(QUERIES)} x {reps}): p50 {ms(pct(all_t, 50))}  p95 {ms(pct(all_t, 95))}")
    print(
        f"  refresh() nothing changed: p50 {ms(pct(r['noop_refresh'], 50))} p95 {ms(pct(r['noop_refresh'], 95))}"
        f"   refresh(deep=True): {ms(r['deep_refresh'])}"
    )
    print(
        f"  after one commit: apply(snapshot) p50 {ms(pct(r['apply'], 50))} p95 {ms(pct(r['apply'], 95))};"
        f" then refresh(keys=[key]) p95 {ms(pct(r['keyed'], 95))};"
        f" watcher note + refresh() p95 {ms(pct(r['watched'], 95))}"
    )
    print(
        f"  the store commit itself: first into a workspace in this process p50 {ms(pct(r['commit'], 50))}"
        f" p95 {ms(pct(r['commit'], 95))}; the same workspace again p50 {ms(pct(r['commit_again'], 50))}"
        f" p95 {ms(pct(r['commit_again'], 95))}"
    )
    print(
        f"  a bare tantivy commit of one document (the floor under apply): p50 {ms(pct(r['bare_commit'], 50))}"
        f" p95 {ms(pct(r['bare_commit'], 95))}"
    )
    print(f"  RSS answering queries {r['rss_queries']:.0f} MB, after the commits {r['rss_end']:.0f} MB")
    old = json.loads(OLD_COUNTS.read_text()).get(size, {}) if OLD_COUNTS.exists() else {}
    same = sum(1 for q in QUERIES if old.get(q) == r["hits"][q])
    print(
        f"  matches vs the previous engine: {same} of {len(QUERIES)} equal"
        + ("" if old else " (no figures for this size)")
    )
    runs = 1 if SIZES[size] >= 1000 else 3
    slower, cli_times, rg_times = cli_vs_rg(root, dsh_memory(), runs, r["hits"], old)
    print(f"  machine at end: {load()}")

    def f(seconds: float) -> str:  # (ms)
        return f"{seconds * 1000:.0f}" if seconds >= 0.0995 else f"{seconds * 1000:.1f}"

    return {
        "cold build, fresh process (s) / CPU (s)": f"{cold['wall']:.2f} / {cold['cpu']:.2f}",
        "peak RSS building (MB)": f"{cold['rss']:.0f}",
        "index on disk (MB)": f"{disk:.0f}",
        "reopen, fresh process (ms)": f(r["reopen"]),
        "first query of a term p50 / p95 (ms)": f"{f(pct(firsts, 50))} / {f(pct(firsts, 95))}",
        "repeated query p50 / p95 (ms)": f"{f(pct(all_t, 50))} / {f(pct(all_t, 95))}",
        "RSS answering queries (MB)": f"{r['rss_queries']:.0f}",
        "refresh() nothing changed p95 (ms)": f(pct(r["noop_refresh"], 95)),
        "apply() after one commit p50 / p95 (ms)": f"{f(pct(r['apply'], 50))} / {f(pct(r['apply'], 95))}",
        "a bare tantivy commit of one document p50 / p95 (ms)": (
            f"{f(pct(r['bare_commit'], 50))} / {f(pct(r['bare_commit'], 95))}"
        ),
        "refresh(keys=[key]) after it p95 (ms)": f(pct(r["keyed"], 95)),
        "watcher note + refresh() p95 (ms)": f(pct(r["watched"], 95)),
        "store commit p95, first into a workspace / again (ms)": (
            f"{f(pct(r['commit'], 95))} / {f(pct(r['commit_again'], 95))}"
        ),
        "one-shot CLI slower than rg -i -l (queries of 20)": f"{slower}",
        "one-shot CLI / rg, median (ms)": f"{f(statistics.median(cli_times))} / {f(statistics.median(rg_times))}",
        "match counts equal to the old engine (of 20)": f"{same}" if old else "(none recorded)",
        "load average at start / end": f"{start_load} / {os.getloadavg()[0]:.2f}",
    }


TARGETS = {
    "cold build, fresh process (s) / CPU (s)": "<= 1.5 s at 10k, <= 8 s at 100k",
    "peak RSS building (MB)": "<= 300 MB",
    "reopen, fresh process (ms)": "<= 300 ms",
    "first query of a term p50 / p95 (ms)": "p95 <= 30 ms at 100k",
    "repeated query p50 / p95 (ms)": "p95 <= 10 ms at 100k",
    "refresh() nothing changed p95 (ms)": "<= 100 ms at 100k",
    "apply() after one commit p50 / p95 (ms)": "<= 20 ms",
    "one-shot CLI slower than rg -i -l (queries of 20)": "0 at 10k and 100k",
    "match counts equal to the old engine (of 20)": "20",
}


def print_table(cells: dict[str, dict[str, str]]) -> None:
    sizes = list(cells)
    print(f"\n=== issue 24 figures ({load()}) ===")
    print("| figure | " + " | ".join(sizes) + " | target |")
    print("|---|" + "---|" * len(sizes) + "---|")
    for row in next(iter(cells.values())):
        print(f"| {row} | " + " | ".join(cells[s].get(row, "") for s in sizes) + f" | {TARGETS.get(row, '')} |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1k,10k,100k")
    parser.add_argument("--dir", type=Path, default=Path(os.environ.get("DSH_BENCH_DIR", "/tmp")))
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--commits", type=int, default=10)
    parser.add_argument("--cli-only", action="store_true", help="only the one-shot CLI vs rg table (--reps runs)")
    parser.add_argument("--cli", help="the dsh-memory to time (default: this checkout's .venv)")
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase == "reopen":
        print(json.dumps(phase_reopen(args.root, args.reps, args.commits)))
        return 0
    if args.phase == "cold":
        print(json.dumps(phase_cold(args.root)))
        return 0
    print(f"machine: {load()}")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "core"), str(REPO / "gui")], check=False)
    if shutil.which("rg") is None:
        print("rg: not installed (apt-get install -y ripgrep, or SETUP_BENCH=1 bash scripts/setup.sh); no ratios")
    if args.cli_only:
        for size in args.sizes.split(","):
            cli_only(args.dir, size.strip(), args.reps, [args.cli] if args.cli else dsh_memory())
        return 0
    cells = {
        size.strip(): bench_size(args.dir, size.strip(), args.reps, args.commits) for size in args.sizes.split(",")
    }
    print_table(cells)
    print("(the window's figures at 100k: benchmarks/gui_bench.py --size 100k, run next by scripts/bench.sh scale)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
