"""What the child processes of the crash and concurrency tests run (forked, or as a script).

``crash ROOT``: commit generation after generation into one workspace until killed. Every generation
rewrites five records and adds or deletes a sixth, so a torn commit would show mixed generations.

``race ROOT N GO``: wait for the file GO, then increment a counter record N times with CAS, retrying
on conflict; print one JSON line with the values this process wrote and the conflicts it saw.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.errors import ConflictError
from core.models import DeleteOp, Op, PutOp, Record
from core.store.fs import FileStore

CWD = "/home/me/crashy"
NAMES = ("alpha", "beta", "gamma", "delta", "epsilon")


def generation_ops(g: int) -> list[Op]:
    body = f"\nGeneration {g}. " + "padding " * (50 * (g % 7)) + "\n"
    ops: list[Op] = [
        PutOp(record=Record(name=n, description=f"gen {g}", type="project", body=body)) for n in NAMES
    ]
    if g % 2:
        ops.append(PutOp(record=Record(name="odd", description=f"gen {g}", type="reference", body=body)))
    else:
        ops.append(DeleteOp(name="odd"))
    return ops


def current_generation(store: FileStore, key: str) -> int:
    snap = store.read_workspace(key)
    rec = snap.get("alpha")
    if rec is None or rec.record is None:
        return 0
    return int(rec.record.description.split()[1])


def crash(root: Path, ready: Callable[[], None] = lambda: print("ready", flush=True)) -> None:
    store = FileStore(root)
    key = store.create_workspace(CWD).key
    g = current_generation(store, key)
    from core.secrets import find_secrets

    find_secrets("warm up")  # its first call loads detect-secrets' plugins (~150 ms)
    ready()
    while True:
        g += 1
        snap = store.read_workspace(key)
        ops = generation_ops(g)
        if g % 2 == 0 and snap.get("odd") is None:
            ops = ops[:-1]
        store.commit(key, ops, snap.revision)


def race(root: Path, n: int, go: Path, ready: Callable[[], None] = lambda: None) -> dict[str, Any]:
    store = FileStore(root)
    key = store.create_workspace(CWD).key
    store.read_workspace(key)
    ready()
    while not go.exists():  # a start line, so the writers really overlap
        time.sleep(0.0005)
    wrote: list[int] = []
    conflicts = 0
    while len(wrote) < n:
        snap = store.read_workspace(key)
        entry = snap.get("counter")
        value = int(entry.record.body.strip()) if entry is not None and entry.record is not None else 0
        rec = Record(name="counter", description="shared counter", type="project", body=f"{value + 1}\n")
        time.sleep(0.002)  # "think" between read and write, as a user or a model call would
        try:
            store.commit(key, [PutOp(record=rec)], snap.revision)
        except ConflictError:
            conflicts += 1
            continue
        wrote.append(value + 1)
    return {"wrote": wrote, "conflicts": conflicts}


if __name__ == "__main__":
    mode, root = sys.argv[1], Path(sys.argv[2])
    if mode == "crash":
        crash(root)
    else:
        print(json.dumps(race(root, int(sys.argv[3]), Path(sys.argv[4]))), flush=True)
