"""MCP round trips over stdio and Streamable HTTP on the reference workload (100 workspaces x 100
records + ~20 KB GLOBAL.md).

Starts ``dsh-memory mcp`` as a subprocess (stdio, then ``--http`` on 127.0.0.1 with a bearer token),
talks to it with the MCP SDK's own clients, and prints start-up time and p50/p95 of ``memory_recall``,
``memory_search`` and ``memory_edit`` (an append, committed, carrying the previous answer's
``observed`` handle) round trips, next to recall/search made in-process (no transport) for
comparison. Prints figures; asserts nothing. The edits append to one record of the workload.

Run: ``python benchmarks/mcp_bench.py [--root DIR] [--reps N]`` (without ``--root`` the workload is
generated into a temp dir first).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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


async def rounds(client: Any, label: str, reps: int) -> None:
    """recall, search and edit round trips on one connection (an edit carries the previous answer's handle)."""
    import mcp_types as types

    t1 = time.perf_counter()
    index = await client.call_tool("memory_index", {})
    first = time.perf_counter() - t1
    text = index.content[0].text
    name = re.search(r"^- \[([a-z0-9-]+)\]", text, re.M).group(1)  # type: ignore[union-attr]
    handle = text.rstrip().splitlines()[-1].removeprefix("observed: ")
    print(f"first memory_index over {label} (index built): {first * 1000:.0f} ms")
    recall: list[float] = []
    search: list[float] = []
    edit: list[float] = []
    sizes: list[int] = []
    for rep in range(reps):
        for n, q in enumerate(QUERIES):
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
            handle = json.loads(r.content[0].text)["observed"]
            t = time.perf_counter()
            r = await client.call_tool(
                "memory_edit",
                {"name": name, "op": "append", "text": f"bench note {rep}-{n}", "reason": "bench", "observed": handle},
            )
            edit.append(time.perf_counter() - t)
            assert not r.is_error, r.content[0].text
            handle = json.loads(r.content[0].text)["observed"]
    print(line(f"memory_recall over {label}", recall))
    print(line(f"memory_search over {label}", search))
    print(line(f"memory_edit (append, committed) over {label}", edit))
    print(f"recall answer size: median {statistics.median(sizes):.0f} bytes, max {max(sizes)} bytes")


def over_stdio(root: Path, cwd: str, reps: int) -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "core.cli.main", "--root", str(root), "mcp", "--cwd", cwd, "--writes", "direct"],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )

    async def main() -> None:
        t0 = time.perf_counter()
        async with Client(params, cache=None, read_timeout_seconds=120) as client:
            await client.list_tools()
            print(f"stdio: server start + handshake + list_tools: {(time.perf_counter() - t0) * 1000:.0f} ms")
            await rounds(client, "stdio", reps)

    anyio.run(main)


def over_http(root: Path, cwd: str, reps: int) -> None:
    import socket
    import subprocess

    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    scratch = Path(tempfile.mkdtemp(prefix="dsh-mcp-bench-http-"))
    token = "bench-" + "t" * 40
    (scratch / "token").write_text(token)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = ["--root", str(root), "mcp", "--cwd", cwd, "--writes", "direct", "--http", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "core.cli.main", *args, "--token-file", str(scratch / "token")],
        env={**os.environ, "PYTHONPATH": str(REPO), "XDG_CONFIG_HOME": str(scratch)},
        cwd=str(REPO),
        stderr=subprocess.DEVNULL,
    )
    try:
        t0 = time.perf_counter()
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            time.sleep(0.05)
        print(f"http: server start until listening: {(time.perf_counter() - t0) * 1000:.0f} ms")

        async def main() -> None:
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
                url = f"http://127.0.0.1:{port}/mcp"
                async with Client(streamable_http_client(url, http_client=http), cache=None) as client:
                    await rounds(client, "HTTP", reps)

        anyio.run(main)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(scratch, ignore_errors=True)


def in_process(root: Path, cwd: str, reps: int) -> None:
    from core.mcp.agent import AgentSession
    from core.store.fs import FileStore

    session = AgentSession(FileStore(root), cwd, writes="direct")
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
        over_http(root, cwd, args.reps)
        in_process(root, cwd, args.reps)
        load = os.getloadavg()
        print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
