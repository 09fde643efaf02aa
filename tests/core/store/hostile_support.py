"""Helpers of the hostile-conditions tests: forked direct writers, records, root snapshots."""

from __future__ import annotations

import json
import os
import random
import re
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from core.atomic import rename_exchange, rename_noreplace
from core.models import Record
from core.records import render_record

CWD = "/home/me/hostile"


def rec(name: str, body: str = "\nA fact.\n", description: str | None = None) -> Record:
    return Record(name=name, description=description or f"About {name}", type="project", body=body)


def fork(target: Callable[[int], None]) -> tuple[int, int]:
    """Fork a child running ``target(out_fd)``; returns (pid, read end of its pipe).

    Forked from the test process (everything imported already), so the child starts at once; it is
    a real process with its own descriptors, scheduling and (for the store) its own locks.
    """
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 0
        try:
            os.close(r)
            target(w)
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    return pid, r


def read_all(fd: int) -> bytes:
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def agent_version(i: int, name: str = "shared") -> bytes:
    return render_record(rec(name, f"\nAgent version {i}.\n", description="written by the agent"))


def _swap_in(tmp: Path, target: Path) -> bytes:
    """Put ``tmp`` at ``target`` and return exactly the bytes that displaced (b"" for a create).

    A create must not replace either: if the store put a version back between our failed exchange
    and the create, a plain replace would drop that version without this writer knowing it did.
    """
    while True:
        try:
            swapped = rename_exchange(str(tmp), str(target))
        except FileNotFoundError:  # deleted by the store a moment ago: a create
            swapped = None
        if swapped:
            out_bytes = tmp.read_bytes()
            tmp.unlink()
            return out_bytes
        if swapped is False:  # no exchange on this system: a plain replace, displaced bytes unknown
            os.replace(tmp, target)
            return b""
        try:
            rename_noreplace(str(tmp), str(target))
            return b""
        except FileExistsError:
            continue  # it came back meanwhile: exchange again


def direct_writer(
    target: Path, stop: Path, make: Callable[[int], bytes], pause: float = 0.03
) -> Callable[[int], None]:
    """A DSH-agent-like writer: replaces ``target`` (temp + rename) without our lock, as fast as it can.

    It swaps its temp file in with RENAME_EXCHANGE, so it knows exactly which bytes *it* displaced:
    versions it superseded itself are not the store's to keep. Reports JSON: versions written, and
    the agent versions it displaced itself.
    """

    def run(out: int) -> None:
        wrote: list[int] = []
        self_displaced: list[int] = []
        tmp = target.parent / f".agent-tmp-{os.getpid()}"
        i = 0
        while not stop.exists():
            i += 1
            data = make(i)
            tmp.write_bytes(data)
            out_bytes = _swap_in(tmp, target)
            wrote.append(i)
            m = re.search(rb"Agent version (\d+)\.", out_bytes)
            if m is not None and out_bytes == make(int(m.group(1))):
                self_displaced.append(int(m.group(1)))  # it superseded its own earlier version
            time.sleep(random.uniform(0, pause))  # "every few milliseconds", never in step with us
        os.write(out, json.dumps({"wrote": wrote, "self_displaced": self_displaced}).encode())

    return run


def disk(root: Path, skip_manager: bool = True) -> dict[str, bytes]:
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if skip_manager and rel.startswith(".manager"):
            continue
        if p.is_file() and not p.is_symlink():
            out[rel] = p.read_bytes()
    return out
