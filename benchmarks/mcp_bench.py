"""MCP round trips over stdio on the reference workload (100 workspaces x 100 records + ~20 KB GLOBAL.md).

Starts ``dsh-memory mcp`` as a subprocess, talks to it with the MCP SDK's stdio client, and prints
start-up time and p50/p95 of ``memory_recall`` and ``memory_search`` round trips, next to the same
calls made in-process (no transport) for comparison. Prints figures; asserts nothing.

Run: ``python benchmarks/mcp_bench.py [--root DIR] [--reps N]`` (without ``--root`` the workload is
generated into a temp dir first).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``core`` and ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.workload import generate_workload, workspace_cwd

REPO = Path(__file__).resolve().parents[1]
QUERIES = (
    "pnpm",
    "electron-builder",
    "postgres 5433",
    "redis ttl session",
    "release changelog conventional commits",
    "打包为什么慢",
    "数据库迁移",
    "用 pnpm 打包",
    "electron 公证",
    "",
)


def pct(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def line(label: str, samples: Sequence[float]) -> str:
    ms = [s * 1000 for s in samples]
    return (
        f"{label:34} p50 {pct(ms, 50):7.2f} ms   p95 {pct(ms, 95):7.2f} ms   "
        f"mean {statistics.fmean(ms):7.2f} ms   ({len(ms)} calls)"
    )


def backdate(root: Path, seconds: float = 3600.0) -> None:
    """Files written a moment ago are never trusted from stat caches; make the workload look settled."""
    when = time.time() - seconds
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (when, when))


def over_stdio(root: Path, cwd: str, reps: int) -> None:
    import anyio
    import mcp_types as types
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "core.cli.main", "--root", str(root), "mcp", "--cwd", cwd, "--writes", "off"],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )

    async def main() -> None:
        t0 = time.perf_counter()
        async with Client(params, cache=None, read_timeout_seconds=120) as client:
            await client.list_tools()
            started = time.perf_counter() - t0
            t1 = time.perf_counter()
            await client.call_tool("memory_recall", {"query": "pnpm"})
            first = time.perf_counter() - t1
            print(f"server start + handshake + list_tools: {started * 1000:.0f} ms")
            print(f"first memory_recall (index of the workspace and Global built): {first * 1000:.0f} ms")
            recall: list[float] = []
            search: list[float] = []
            sizes: list[int] = []
            for _ in range(reps):
                for q in QUERIES:
                    t = time.perf_counter()
                    r = await client.call_tool("memory_recall", {"query": q})
                    recall.append(time.perf_counter() - t)
                    block = r.content[0]
                    assert isinstance(block, types.TextContent) and not r.is_error
                    sizes.append(len(block.text.encode()))
                    t = time.perf_counter()
                    r = await client.call_tool("memory_search", {"query": q or "build", "limit": 10})
                    search.append(time.perf_counter() - t)
                    assert not r.is_error
            print(line("memory_recall over stdio", recall))
            print(line("memory_search over stdio", search))
            print(f"recall answer size: median {statistics.median(sizes):.0f} bytes, max {max(sizes)} bytes")

    anyio.run(main)


def in_process(root: Path, cwd: str, reps: int) -> None:
    from core.mcp.agent import AgentSession
    from core.store.fs import FileStore

    session = AgentSession(FileStore(root), cwd, writes="off")
    session.recall("pnpm")
    recall: list[float] = []
    search: list[float] = []
    for _ in range(reps):
        for q in QUERIES:
            t = time.perf_counter()
            session.recall(q)
            recall.append(time.perf_counter() - t)
            t = time.perf_counter()
            session.search(q or "build", 10)
            search.append(time.perf_counter() - t)
    print(line("recall in-process (no transport)", recall))
    print(line("search in-process (no transport)", search))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, help="existing workload root (default: generate one)")
    parser.add_argument("--reps", type=int, default=10, help="rounds over the queries (default 10)")
    args = parser.parse_args(argv)
    tmp: str | None = None
    if args.root is None:
        tmp = tempfile.mkdtemp(prefix="dsh-mcp-bench-")
        root = Path(tmp) / "memory"
        t = time.perf_counter()
        generate_workload(root)
        print(f"workload: generated in {time.perf_counter() - t:.1f} s under {root}")
    else:
        root = args.root
    backdate(root)
    cwd = workspace_cwd(0)
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cpus, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"workspace: {cwd} (100 records), {len(QUERIES)} queries x {args.reps} rounds")
    try:
        over_stdio(root, cwd, args.reps)
        in_process(root, cwd, args.reps)
        load = os.getloadavg()
        print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
