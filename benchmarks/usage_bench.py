"""Usage ledger speed (issue 30): 1,000 DSH sessions x 200 tool calls each.

Targets: a cold ledger build <= 5 s; an update when one session is new <= 100 ms.

Each generated session (plain JSONL, DSH's compact shape) has per tool call a step/start row,
the ``tool/call`` (read, grep, glob, bash, edit, run_code + a code-dispatch, an unknown tool) with
a ~300-byte ``tool/result``, and an assistant message; about 1 call in 20 names a memory file
(an absolute read, a grep over the workspace folder, a bash ``cat``). The memory root holds one
workspace of 50 records. ``python benchmarks/usage_bench.py [--sessions N] [--calls N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.models import PutOp, Record
from core.store.fs import FileStore
from core.usage import UsageLedger

T0 = 1_785_000_000_000


def _rows(session: str, cwd: str, ws: str, calls: int, rng: random.Random) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [{"type": "session", "version": 0, "id": session, "createdAt": T0, "cwd": cwd}]
    seq = 0

    def add(kind: str, data: dict[str, Any]) -> None:
        nonlocal seq
        rows.append({"type": kind, "seq": seq, "time": T0 + seq, "data": data})
        seq += 1

    add("user/message", {"content": [{"type": "text", "text": "Fix the flaky test."}], "source": {"kind": "user"}})
    for i in range(calls):
        add("step/start", {"turn": 1, "step": i})
        memory = rng.random() < 0.05
        record = f"{ws}/note-{rng.randrange(50):02d}.md"
        shape = rng.randrange(7)
        if memory:
            name, args = [("read", {"file_path": record}), ("grep", {"pattern": "flaky", "path": ws}),
                          ("bash", {"command": f"cat {record} | head -n 20"})][shape % 3]  # fmt: skip
        else:
            path = f"src/module_{rng.randrange(200)}.py"
            name, args = [
                ("read", {"file_path": path}),
                ("grep", {"pattern": "def test_", "path": "tests"}),
                ("glob", {"pattern": "**/*.py", "path": "src"}),
                ("bash", {"command": f"pytest -q tests/test_{i}.py -x"}),
                ("edit", {"file_path": path, "old_string": "a = 1", "new_string": "a = 2"}),
                ("run_code", {"code": "return await tools.read({file_path: 'x.py'})"}),
                ("lookup_symbol", {"symbol": "Frobnicator"}),
            ][shape]
        add("tool/call", {"turn": 1, "step": i, "callId": f"c{i}", "name": name, "arguments": json.dumps(args)})
        if name == "run_code":
            add("tool/code-dispatch", {"rootCallId": f"c{i}", "subCallId": f"c{i}:code:1", "name": "read",
                                       "arguments": {"file_path": "x.py"}, "isError": False,
                                       "content": [{"type": "text", "text": "x = 1\n" * 20}]})  # fmt: skip
        add("tool/result", {"callId": f"c{i}", "content": [{"type": "text", "text": "ok " * 100}], "isError": False})
        add("assistant/message", {"message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}})
    return rows


def _write(folder: Path, rows: list[dict[str, Any]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "session.jsonl"
    target.write_bytes(b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in rows))
    os.utime(target, (1_700_000_000, 1_700_000_000))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    rng = random.Random(30)
    with tempfile.TemporaryDirectory(prefix="usage-bench-") as tmp:
        base = Path(tmp)
        project = base / "project"
        project.mkdir()
        store = FileStore(base / "memory")
        snap = store.create_workspace(str(project))
        bodies = [f"Fact {i}; " + ("the flaky test runs in CI only." if i % 17 == 0 else "build with make.")
                  for i in range(50)]  # fmt: skip
        ops = [PutOp(record=Record(name=f"note-{i:02d}", description=f"note {i}", type="project", body=bodies[i]))
               for i in range(50)]  # fmt: skip
        store.commit(snap.key, ops, snap.revision)
        ws = str(store.root / "workspaces" / snap.key)
        sessions = base / "sessions"
        started = time.perf_counter()
        total_bytes = 0
        for n in range(opts.sessions):
            rows = _rows(f"s-{n:05d}", str(project), ws, opts.calls, rng)
            _write(sessions / f"--p{n % 20}--" / f"s-{n:05d}", rows)
            total_bytes += (sessions / f"--p{n % 20}--" / f"s-{n:05d}" / "session.jsonl").stat().st_size
        print(f"generated {opts.sessions} sessions x {opts.calls} tool calls ({total_bytes / 1e6:.0f} MB) "
              f"in {time.perf_counter() - started:.1f} s")  # fmt: skip
        cold: list[float] = []
        for _ in range(opts.repeat):
            ledger = UsageLedger(store, sessions, quiet_seconds=0)
            stats = ledger.update(rebuild=True)
            cold.append(stats.seconds)
        print(f"cold build: median {statistics.median(cold):.2f} s (runs: {', '.join(f'{c:.2f}' for c in cold)}) "
              f"target <= 5 s; {stats.sessions_read} sessions, {stats.tool_calls} tool calls, "
              f"{stats.calls_parsed} parsed, {stats.uses_found} memory uses")  # fmt: skip
        warm: list[float] = []
        for k in range(opts.repeat):
            _write(sessions / "--new--" / f"new-{k}", _rows(f"new-{k}", str(project), ws, opts.calls, rng))
            stats = UsageLedger(store, sessions, quiet_seconds=0).update()
            assert stats.sessions_read == 1, stats
            warm.append(stats.seconds)
        print(f"one new session: median {statistics.median(warm) * 1000:.0f} ms "
              f"(runs: {', '.join(f'{w * 1000:.0f}' for w in warm)}) target <= 100 ms")  # fmt: skip
        started = time.perf_counter()
        view = UsageLedger(store, sessions, quiet_seconds=0).view()
        print(f"view (fold of {view.sessions} sessions): {(time.perf_counter() - started) * 1000:.0f} ms, "
              f"{len(view.records)} memory files used")  # fmt: skip
    with open("/proc/loadavg") as handle:
        print("loadavg:", handle.read().strip())


if __name__ == "__main__":
    main()
