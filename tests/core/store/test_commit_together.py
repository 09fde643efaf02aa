"""Issue 10 §2: ``commit_together`` commits a workspace batch and GLOBAL.md as one transaction.

Contract over both backends; every I/O step made to fail in turn; a death after each applied file
(journal left in place) settled by the next open; and a real SIGKILL loop over the CLI's
``consolidate --apply --accept-global``.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hostile_support import rec
from test_store_faults import Injector, files, leftovers

from core.errors import ConflictError, SecretRefusedError, StorageError
from core.models import DeleteOp, PutOp
from core.store import journal, journal_recovery
from core.store.base import StoreCore
from core.store.files import RECEIPTS, SETTINGS
from core.store.fs import FileStore

CWD = "/home/me/together"
G1 = "# Global\n\nv1\n"
G2 = "# Global\n\nv2 (British English)\n"


def _setup(store: StoreCore) -> str:
    store.replace_global(G1, None)
    s = store.create_workspace(CWD)
    store.commit(s.key, [PutOp(record=rec("keep")), PutOp(record=rec("old"))], s.revision)
    return s.key


def _ops() -> list[PutOp | DeleteOp]:
    return [PutOp(record=rec("old", "\nnew\n")), PutOp(record=rec("fresh")), DeleteOp(name="keep")]


def test_both_scopes_change_together(store: StoreCore) -> None:
    key = _setup(store)
    ws, g = store.read_workspace(key), store.read_global()
    ws2, g2 = store.commit_together(key, _ops(), ws.revision, global_text=G2, global_expect=g.revision)
    assert g2.text == G2 and store.read_global() == g2
    assert sorted(e.name for e in ws2.entries) == ["fresh", "old"] and store.read_workspace(key) == ws2
    assert {h.name for h in store.history.entries()} == {"GLOBAL", "keep", "old"}


@pytest.mark.parametrize("stale", ["global", "workspace"])
def test_a_stale_revision_on_either_side_writes_nothing(store: StoreCore, stale: str) -> None:
    key = _setup(store)
    ws, g = store.read_workspace(key), store.read_global()
    if stale == "global":
        store.replace_global("# someone else\n", g.revision)
    else:
        store.commit(key, [PutOp(record=rec("other"))], ws.revision)
    before = (store.read_global(), store.read_workspace(key), len(store.history.entries()))
    with pytest.raises(ConflictError):
        store.commit_together(key, _ops(), ws.revision, global_text=G2, global_expect=g.revision)
    assert (store.read_global(), store.read_workspace(key), len(store.history.entries())) == before


def test_a_secret_on_either_side_refuses_both(store: StoreCore) -> None:
    key = _setup(store)
    ws, g = store.read_workspace(key), store.read_global()
    before = (store.read_global(), store.read_workspace(key))
    with pytest.raises(SecretRefusedError):
        store.commit_together(
            key, _ops(), ws.revision, global_text=G2 + "DB_PASSWORD=hunter2024\n", global_expect=g.revision,
            origin="automatic",
        )
    assert (store.read_global(), store.read_workspace(key)) == before


def test_without_global_text_it_is_a_plain_commit(store: StoreCore) -> None:
    key = _setup(store)
    ws = store.read_workspace(key)
    ws2, g = store.commit_together(key, _ops(), ws.revision)
    assert g == store.read_global() and g.text == G1
    assert sorted(e.name for e in ws2.entries) == ["fresh", "old"]


def _fixed_clock() -> Any:
    from datetime import UTC, datetime

    return datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def _do(store: FileStore, key: str) -> None:
    ws, g = store.read_workspace(key), store.read_global()
    store.commit_together(key, _ops(), ws.revision, global_text=G2, global_expect=g.revision)


def _make(root: Path) -> tuple[FileStore, str]:
    store = FileStore(root, clock=_fixed_clock)
    return store, _setup(store)


def _both(root: Path) -> tuple[str, str]:
    """("old" | "new", "old" | "new") for Global and the workspace as a fresh open sees them."""
    store = FileStore(root)
    g = "new" if store.read_global().text == G2 else "old"
    snap = store.find_workspace(CWD)
    assert snap is not None
    names = sorted(e.name for e in snap.entries)
    ws = {("keep", "old"): "old", ("fresh", "old"): "new"}[tuple(names)]  # type: ignore[index]
    return g, ws


def test_failure_at_every_step_leaves_both_old_or_both_new(tmp_path: Path) -> None:
    store, key = _make(tmp_path / "count")
    counter = Injector()
    with counter.active():
        _do(store, key)
    total = len(counter.calls)
    assert total > 10
    seen = set()
    for i in range(total):
        root = tmp_path / f"r{i}"
        store, key = _make(root)
        before = files(root)
        inj = Injector(fail_at=i)
        raised: BaseException | None = None
        with inj.active():
            try:
                _do(FileStore(root, clock=_fixed_clock), key)
            except Exception as exc:
                raised = exc
        where = f"step {i}: {inj.calls[i] if i < len(inj.calls) else '?'}"
        assert not leftovers(root), where
        state = _both(root)
        assert state in (("old", "old"), ("new", "new")), where
        if raised is not None:
            assert isinstance(raised, StorageError) and raised.message, f"{where}: {raised!r}"
            assert state == ("old", "old") and files(root).keys() == before.keys(), where
        seen.add(state)
    assert seen == {("old", "old"), ("new", "new")}


class Died(BaseException):
    pass


@pytest.mark.parametrize("applied", range(6))
def test_death_after_each_applied_file_is_settled_as_a_unit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, applied: int
) -> None:
    root = tmp_path / "m"
    store, key = _make(root)
    count = {"n": 0}
    with monkeypatch.context() as m:
        for fn in ("_apply_replace", "_apply_create", "_apply_delete"):
            real = getattr(journal, fn)

            def wrapper(*args: object, _real: object = real, **kwargs: object) -> object:
                if count["n"] >= applied:
                    raise Died
                count["n"] += 1
                return _real(*args, **kwargs)  # type: ignore[operator]

            m.setattr(journal, fn, wrapper)
        m.setattr(journal, "_abort_after_commit_point", lambda *a: False)
        with contextlib.suppress(Died):
            _do(store, key)
    if applied % 2:
        # A writer of either scope in a process that was running all along settles it first.
        if applied % 4 == 1:
            store.commit(key, [PutOp(record=rec("later"))], None)
        else:
            store.replace_global(G2 + "later\n", None)
        assert journal_recovery.pending(root) == []
    store2 = FileStore(root)  # the next open settles whatever is left
    assert journal_recovery.pending(root) == [] and store2.read_global().text.startswith(G2)
    snap = store2.read_workspace(key)
    assert {"fresh", "old"} <= {e.name for e in snap.entries} and snap.get("keep") is None


# --- a real SIGKILL loop over the CLI -------------------------------------------------------------
def _consolidation_env(tmp_path: Path) -> tuple[list[str], dict[str, str], Path, Any]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "consolidation"))
    from consolidation_support import ChatServer, proposal_reply, write_dsh_session

    from core.settings import AppSettings, CustomEndpoint, render_settings

    server = ChatServer()
    reply = proposal_reply(
        [
            {
                "op": "put",
                "record": {
                    "name": "release-day", "description": "Releases", "type": "project", "body": "\nTuesdays.\n"
                },
                "reason": "the user said so",
                "evidence": [1],
            },
            {"op": "replace_global", "text": G2, "reason": "stated about themselves", "evidence": [1]},
        ]
    )
    server.replies.extend([reply] * 1000)
    sessions = tmp_path / "sessions"
    cwd = "/home/ada/projects/shop"
    write_dsh_session(sessions, "sess-kill", cwd, [("I write British English. Releases are on Tuesdays.", "Noted.")])
    home = tmp_path / "dsh-home"
    home.mkdir()
    env = {**os.environ, "DSH_HOME": str(home), "HOME": str(tmp_path), "LOOPBACK_KEY": "test-key-123"}
    settings = AppSettings(
        consolidator="model",
        selected_model="custom",
        custom_endpoint=CustomEndpoint(base_url=server.url, model="test-model", api_key_env="LOOPBACK_KEY"),
        quiet_period_seconds=0,
        request_timeout_seconds=10,
    )
    root = tmp_path / "memory"
    store = FileStore(root)
    store.files(SETTINGS).replace(render_settings(settings), None)
    store.replace_global(G1, None)
    s = store.create_workspace(cwd)
    store.commit(s.key, [PutOp(record=rec("existing"))], s.revision)
    argv = ["--root", str(root), "--json", "consolidate", "sess-kill", "--apply", "--accept-global",
            "--sessions-root", str(sessions), "--force"]
    return argv, env, root, server


def _outcome(root: Path) -> tuple[str, str, str]:
    """(global, workspace, receipt) after a reopen: each "old" or "new"; the receipt "committed" or
    "open" (absent or not committed). "new/open" is a kill between the store's commit and the
    receipt write: memory is whole, and the receipt still names the old revisions it was based on."""
    store = FileStore(root)
    g = "new" if store.read_global().text == G2 else "old"
    snap = store.find_workspace("/home/ada/projects/shop")
    assert snap is not None
    ws = "new" if snap.get("release-day") is not None else "old"
    statuses = []
    for rid in store.files(RECEIPTS).list():
        text = store.files(RECEIPTS).read(rid) or ""
        statuses.append("committed" if "status: committed" in text or '"committed"' in text else "open")
    return g, ws, ("committed" if "committed" in statuses else "open")


def _reset(root: Path) -> None:
    """Back to the old state through the store (as a user undoing it would), for the next round."""
    store = FileStore(root)
    snap = store.find_workspace("/home/ada/projects/shop")
    assert snap is not None
    if snap.get("release-day") is not None:
        store.commit(snap.key, [DeleteOp(name="release-day")], None)
    if store.read_global().text != G1:
        store.replace_global(G1, None)
    for rid in store.files(RECEIPTS).list():
        (root / "reviews" / f"{rid}.md").unlink()


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_sigkill_loop_over_consolidate_apply_accept_global(tmp_path: Path) -> None:
    """100 forked CLI runs (``core.cli.main.main``, the code ``python -m core.cli.main`` runs) killed
    with SIGKILL at random moments, plus a few real ``python -m core.cli.main`` processes: after each
    reopen Global and the workspace are both old or both new, and a committed receipt means new."""
    from core.cli.main import main

    argv, env, root, server = _consolidation_env(tmp_path)
    os.environ.update({k: env[k] for k in ("DSH_HOME", "LOOPBACK_KEY")})
    tally: dict[str, int] = {}
    try:
        # How long one run takes, so kills are spread over its whole life (most of it is the commit).
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os._exit(main(argv, stdout=open(os.devnull, "w"), stderr=open(os.devnull, "w")))  # noqa: SIM115
        os.waitpid(pid, 0)
        span = max(time.monotonic() - t0, 0.02)
        assert _outcome(root) == ("new", "new", "committed")
        _reset(root)
        rng = random.Random(9)
        for _ in range(100):
            pid = os.fork()
            if pid == 0:
                os._exit(main(argv, stdout=open(os.devnull, "w"), stderr=open(os.devnull, "w")))  # noqa: SIM115
            time.sleep(rng.uniform(0, span * 1.1))
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            g, ws, receipt = _outcome(root)
            assert g == ws, f"Global {g} but workspace {ws}"
            if receipt == "committed":
                assert g == "new"
            key = f"{g}/{receipt}"
            tally[key] = tally.get(key, 0) + 1
            _reset(root)
        repo = Path(__file__).resolve().parents[3]
        for delay in (0.8, 1.6, 2.4):
            child = subprocess.Popen([sys.executable, "-m", "core.cli.main", *argv], cwd=repo, env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(delay)
            child.send_signal(signal.SIGKILL)
            child.wait()
            g, ws, receipt = _outcome(root)
            assert g == ws and (receipt != "committed" or g == "new")
            tally[f"process {g}/{receipt}"] = tally.get(f"process {g}/{receipt}", 0) + 1
            _reset(root)
    finally:
        server.close()
    print(f"\nSIGKILL loop outcomes: {json.dumps(tally, sort_keys=True)}")
    assert sum(tally.values()) >= 103
