"""Soak the FileStore: 8 writer processes and a direct writer, random SIGKILLs, then count what is lost.

    .venv/bin/python benchmarks/soak.py [--seconds 60] [--workers 8] [--root DIR]

Each writer process (forked, so a restart is instant) loops over mixed operations on three
workspaces and GLOBAL.md: put (55 %), delete (15 %), global (15 %), archive (8 %) and restore (7 %),
each a CAS write of a value carrying a unique token. After a write returns, the worker appends the
token to its acknowledgement log (fsynced): only acknowledged writes are counted. The supervisor
SIGKILLs a random writer every 0.2-1.5 s and starts a new one in its place.

A direct-writer process (a DSH agent writing without our lock) replaces ``shared.md`` of the first
workspace every few milliseconds with RENAME_EXCHANGE, so it knows which of its versions it
superseded itself.

At the end the root is reopened (recovery runs) and every acknowledged token is looked for in the
records, GLOBAL.md, archived workspaces and history (kept unbounded for the run, so pruning can't pass
for a loss). Prints: acknowledged writes found / lost, conflicts, kills, and the direct-writer figure
(agent versions written, kept, superseded by the agent itself, lost). Target: 0 lost.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import atomic
from core.errors import ConflictError, DshMemoryError, NotFoundError
from core.models import DeleteOp, PutOp, Record
from core.records import render_record
from core.store import rules
from core.store.fs import FileStore

CWDS = [f"/soak/project-{i}" for i in range(3)]
NAMES = [f"note-{i}" for i in range(8)]
TOKEN = re.compile(rb"tok-[0-9]+-[0-9]+-[0-9]+")


def _record(name: str, token: str) -> Record:
    return Record(name=name, description=f"soak {name}", type="project", body=f"\nValue {token}.\n")


def _ack(fd: int, kind: str, token: str) -> None:
    os.write(fd, f"{kind} {token}\n".encode())
    os.fsync(fd)


def worker(root: Path, wid: int, life: int, ack_path: Path, stats_path: Path) -> None:
    rules.HISTORY_MAX_VERSIONS = 10**9  # keep every version: a pruned one must not look lost
    store = FileStore(root)
    rng = random.Random(wid * 1000 + life)
    fd = os.open(ack_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    conflicts = ops = 0
    seq = 0
    while True:
        seq += 1
        token = f"tok-{wid}-{life}-{seq}"
        cwd = rng.choice(CWDS)
        roll = rng.random()
        try:
            if roll < 0.15:
                g = store.read_global()
                store.replace_global(f"# Global\n\nLast set by {token}.\n", g.revision)
                _ack(fd, "global", token)
            elif roll < 0.23:
                snap = store.find_workspace(cwd)
                if snap is not None:
                    store.recycle.archive(snap.key, snap.revision)
            elif roll < 0.30:
                keys = [i.key for i in store.list_workspaces(archived=True)]
                if keys:
                    store.recycle.restore(rng.choice(keys))
            else:
                snap = store.find_workspace(cwd) or store.create_workspace(cwd)
                name = rng.choice(NAMES) if cwd != CWDS[0] or rng.random() < 0.8 else "shared"
                if roll < 0.45 and snap.get(name) is not None and name != "shared":
                    store.commit(snap.key, [DeleteOp(name=name)], snap.revision)
                else:
                    store.commit(snap.key, [PutOp(record=_record(name, token))], snap.revision)
                    _ack(fd, "put", token)
            ops += 1
        except ConflictError:
            conflicts += 1
        except (NotFoundError, DshMemoryError):
            conflicts += 1  # archived meanwhile, or restored by someone else first: also a lost race
        if seq % 20 == 0:
            atomic.write_atomic(stats_path, json.dumps({"ops": ops, "conflicts": conflicts}).encode())


def direct_writer(target_dir: Path, stop: Path, out: Path) -> None:
    wrote = 0
    self_displaced: list[int] = []
    took: list[str] = []  # store versions the agent itself replaced (its choice, not a store loss)
    tmp = target_dir / f".agent-{os.getpid()}"
    while not stop.exists():
        time.sleep(random.uniform(0.001, 0.01))
        target = target_dir / "shared.md"
        data = render_record(_record("shared", f"agent-{wrote + 1}"))
        try:
            tmp.write_bytes(data)
        except OSError:
            continue  # the workspace is in the Recycle Bin right now: nothing to write into
        wrote += 1
        try:
            if target.exists() and atomic.rename_exchange(str(tmp), str(target)):
                displaced = tmp.read_bytes()
                m = re.search(rb"agent-(\d+)", displaced)
                if m:
                    self_displaced.append(int(m.group(1)))
                took.extend(t.decode() for t in TOKEN.findall(displaced))
                tmp.unlink()
            else:
                os.replace(tmp, target)
        except OSError:
            # Archived in between: our version never landed; it counts as superseded by ourselves.
            self_displaced.append(wrote)
            with contextlib.suppress(OSError):
                tmp.unlink()
    out.write_text(json.dumps({"wrote": wrote, "self_displaced": self_displaced, "took": took}))


def _fork(fn: object, *args: object) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            fn(*args)  # type: ignore[operator]
        finally:
            os._exit(0)
    return pid


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--root", help="where to build the soak root (default: a temp folder)")
    args = parser.parse_args()
    work = Path(args.root) if args.root else Path(tempfile.mkdtemp(prefix="dsh-soak-"))
    root = work / "memory"
    logs = work / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    store = FileStore(root)
    store.replace_global("# Global\n\nStart.\n", None)
    first = store.create_workspace(CWDS[0])
    store.commit(first.key, [PutOp(record=_record("shared", "start"))], first.revision)
    stop = work / "stop"
    agent_out = logs / "agent.json"
    agent = _fork(direct_writer, root / "workspaces" / first.key, stop, agent_out)
    lives = [0] * args.workers
    pids = {
        _fork(worker, root, w, 0, logs / f"ack-{w}.log", logs / f"stats-{w}-0.json"): w for w in range(args.workers)
    }
    rng = random.Random(1)
    kills = 0
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline:
        time.sleep(rng.uniform(0.2, 1.5))
        pid = rng.choice(list(pids))
        w = pids.pop(pid)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        kills += 1
        lives[w] += 1
        pids[_fork(worker, root, w, lives[w], logs / f"ack-{w}.log", logs / f"stats-{w}-{lives[w]}.json")] = w
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    stop.touch()
    os.waitpid(agent, 0)

    # Reopen (recovery runs) and look for every acknowledged token.
    rules.HISTORY_MAX_VERSIONS = 10**9
    store = FileStore(root)
    seen: set[bytes] = set()
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink() and "locks" not in p.parts:
            seen.update(TOKEN.findall(p.read_bytes()))
    acked: list[tuple[str, str]] = []
    for ack in logs.glob("ack-*.log"):
        for line in ack.read_text().splitlines():
            parts = line.split()
            if len(parts) == 2:
                acked.append((parts[0], parts[1]))
    agent_doc = json.loads(agent_out.read_text())
    taken = set(agent_doc["took"])
    lost = [t for _, t in acked if t.encode() not in seen and t not in taken]
    by_agent = [t for _, t in acked if t.encode() not in seen and t in taken]
    ops = conflicts = 0
    for s in logs.glob("stats-*.json"):
        try:
            doc = json.loads(s.read_text())
        except ValueError:
            continue
        ops += doc["ops"]
        conflicts += doc["conflicts"]
    agent_kept: set[int] = set()
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink() and "locks" not in p.parts:
            agent_kept.update(int(m) for m in re.findall(rb"agent-(\d+)", p.read_bytes()))
    accounted = agent_kept | set(agent_doc["self_displaced"])
    agent_lost = sorted(set(range(1, agent_doc["wrote"] + 1)) - accounted)
    pending = [p.path for p in store.inspect.check() if "staging" in p.path or "quarantine" in p.path]
    print(f"soak root: {root}")
    print(f"duration: {args.seconds:.0f} s, {args.workers} writer processes, {kills} SIGKILLs")
    found = len(acked) - len(lost) - len(by_agent)
    print(
        f"acknowledged writes: {len(acked)}  found: {found}  lost: {len(lost)}  "
        f"(replaced later by the direct writer itself: {len(by_agent)})"
    )
    print(f"completed operations (last stats of each life): {ops}  conflicts: {conflicts}")
    print(
        f"direct writer: {agent_doc['wrote']} versions written, {len(agent_kept)} on disk or in history, "
        f"{len(agent_doc['self_displaced'])} superseded by itself, lost: {len(agent_lost)}"
    )
    print(f"left unsettled after reopen: {len(pending)}")
    if lost:
        print("lost tokens (first 10):", lost[:10])
    if agent_lost:
        print("lost agent versions (first 10):", agent_lost[:10])
    return 1 if lost or agent_lost or pending else 0


if __name__ == "__main__":
    raise SystemExit(main())
