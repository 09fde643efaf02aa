"""Fault injection: make each file-system call of a mutation fail in turn; the scope stays old (with a
clear StorageError) or, if the failure hit only the clean-up after the commit point, becomes new —
never a mix — and no temp, staging or journal files are left behind."""

from __future__ import annotations

import builtins
import errno
import io
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from core import atomic
from core.atomic import TEMP_PREFIX
from core.errors import StorageError
from core.models import DeleteOp, PutOp, Record
from core.store.fs import FileStore

CWD = "/home/me/faulty"
PATCHED: list[tuple[Any, str]] = [
    (atomic, "_renameat2"),  # RENAME_EXCHANGE / RENAME_NOREPLACE (a ctypes call, not an os function)
    (os, "replace"),
    (os, "rename"),
    (os, "fsync"),
    (os, "open"),
    (os, "link"),
    (os, "unlink"),
    (os, "write"),
    (builtins, "open"),
    (io, "open"),
]


class Injector:
    """Counts calls to the patched functions; raises EIO on call number ``fail_at`` (0-based)."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.fail_at = fail_at
        self.calls: list[str] = []
        self.fired = False

    def wrap(self, name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            n = len(self.calls)
            self.calls.append(f"{name}{args[:2]!r}"[:200])
            if n == self.fail_at:
                self.fired = True
                raise OSError(errno.EIO, f"injected failure in {name}")
            return real(*args, **kwargs)

        return wrapper

    @contextmanager
    def active(self) -> Iterator[None]:
        saved = [(mod, attr, getattr(mod, attr)) for mod, attr in PATCHED]
        try:
            for mod, attr, real in saved:
                setattr(mod, attr, self.wrap(f"{mod.__name__}.{attr}", real))
            yield
        finally:
            for mod, attr, real in saved:
                setattr(mod, attr, real)


def rec(name: str, body: str) -> Record:
    return Record(name=name, description=f"About {name}", type="project", body=body)


def fixed_clock() -> datetime:
    return datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # same bytes in every run (scope.json "created")


def setup_root(root: Path) -> tuple[FileStore, str]:
    store = FileStore(root, clock=fixed_clock)
    store.replace_global("# Global\nv1\n", None)
    s = store.create_workspace(CWD)
    store.commit(s.key, [PutOp(record=rec("keep", "\nk\n")), PutOp(record=rec("old", "\nold\n"))], s.revision)
    (root / "memory.json").write_bytes(b"{}")
    return store, s.key


def files(root: Path) -> dict[str, tuple[bytes, int]]:
    out: dict[str, tuple[bytes, int]] = {}
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if p.is_file() and rel.parts[:2] != (".manager", "locks"):
            out[rel.as_posix()] = (p.read_bytes(), p.stat().st_mtime_ns)
    return out


def leftovers(root: Path) -> list[str]:
    bad = [p.as_posix() for p in root.rglob(f"{TEMP_PREFIX}*")]
    for sub in ("staging", "journal", "trash"):
        d = root / ".manager" / sub
        if d.exists():
            bad += [p.as_posix() for p in d.rglob("*")]
    return bad


def do_commit(store: FileStore, key: str) -> None:
    snap = store.read_workspace(key)
    store.commit(
        key,
        [PutOp(record=rec("old", "\nnew\n")), PutOp(record=rec("fresh", "\nf\n")), DeleteOp(name="keep")],
        snap.revision,
    )


def do_global(store: FileStore, key: str) -> None:
    store.replace_global("# Global\nv2\n", store.read_global().revision)


def do_create(store: FileStore, key: str) -> None:
    store.create_workspace("/home/me/another")


def do_archive(store: FileStore, key: str) -> None:
    store.recycle.archive(key)


def do_restore(store: FileStore, key: str) -> None:
    store.recycle.restore(key)


def do_purge(store: FileStore, key: str) -> None:
    store.recycle.purge(key, "faulty")


def do_restore_history(store: FileStore, key: str) -> None:
    (entry,) = store.history.entries(key, "old")
    store.history.restore(entry.id, None)


def archived(setup: Callable[[Path], tuple[FileStore, str]]) -> Callable[[Path], tuple[FileStore, str]]:
    def wrapped(root: Path) -> tuple[FileStore, str]:
        store, key = setup(root)
        store.recycle.archive(key)
        return store, key

    return wrapped


def with_history(setup: Callable[[Path], tuple[FileStore, str]]) -> Callable[[Path], tuple[FileStore, str]]:
    def wrapped(root: Path) -> tuple[FileStore, str]:
        store, key = setup(root)
        snap = store.read_workspace(key)
        store.commit(key, [PutOp(record=rec("old", "\nolder\n"))], snap.revision)
        return store, key

    return wrapped


@pytest.mark.parametrize(
    ("action", "setup"),
    [
        (do_commit, None),
        (do_global, None),
        (do_create, None),
        (do_archive, None),
        (do_restore, "archived"),
        (do_purge, "archived"),
        (do_restore_history, "history"),
    ],
)
def test_failure_at_every_step(
    tmp_path: Path, action: Callable[[FileStore, str], None], setup: str | None
) -> None:
    make = {None: setup_root, "archived": archived(setup_root), "history": with_history(setup_root)}[setup]
    store, key = make(tmp_path / "count")
    counter = Injector()
    with counter.active():
        action(store, key)
    expected_new = {k: v[0] for k, v in files(tmp_path / "count").items()}
    total = len(counter.calls)
    assert total > 5

    outcomes = {"old": 0, "new": 0}
    for i in range(total):
        root = tmp_path / f"r{i}"
        store, key = make(root)
        before = files(root)
        inj = Injector(fail_at=i)
        raised: BaseException | None = None
        with inj.active():
            try:
                action(FileStore(root, clock=fixed_clock), key)
            except Exception as exc:
                raised = exc
        after = files(root)
        where = f"step {i}: {inj.calls[i] if i < len(inj.calls) else '?'}"
        assert not leftovers(root), where
        if raised is not None:
            assert isinstance(raised, StorageError), f"{where}: {raised!r}"
            assert raised.message
            assert after == before, where
            outcomes["old"] += 1
        else:
            new_bytes = {k: v[0] for k, v in after.items()}
            # History copies and the commit log (best effort after the commit: core/store/commit_log.py)
            # are bookkeeping, not the memory the transaction promises.
            extra = (".manager/history/", ".manager/commit-log/")
            new_bytes = {k: v for k, v in new_bytes.items() if not k.startswith(extra)}
            want = {k: v for k, v in expected_new.items() if not k.startswith(extra)}
            diff = [k for k in new_bytes.keys() | want.keys() if new_bytes.get(k) != want.get(k)]
            assert new_bytes == want, f"{where}: {diff}"
            outcomes["new"] += 1
        # A reopen agrees and finds nothing to recover.
        again = FileStore(root)
        assert again.recovered == []
        assert {k: v[0] for k, v in files(root).items()} == {k: v[0] for k, v in after.items()}
    assert outcomes["old"] > 0
