"""Workspace memory's Recycle Bin: list, preview, restore, purge, archive; a SIGKILLed restore is old or new."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sources_support import World, tree_state, wm_entry, wm_scope

from core.errors import ConfirmationRequiredError, ConflictError, UsageError
from core.sources.workspace_memory import scope_key
from core.sources.workspace_memory_bin import WorkspaceMemoryBin

REPO = Path(__file__).resolve().parents[3]


def _rel(state: dict[str, tuple[bytes | None, int]], base: Path) -> dict[str, bytes | None]:
    return {os.path.relpath(p, base): data for p, (data, _mtime) in state.items()}


def test_archived_scopes_are_listed_labelled_and_previewable(world: World, cli: Any) -> None:
    code, data = cli("foreign-bin", "list")
    assert code == 0
    [scope] = data["archived"]
    assert scope["cwd"] == world.gone and scope["name"] == "gone"
    assert scope["label"] == "gone (DSH workspace memory)" and scope["entries"] == 1
    missing = {s["cwd"] for s in data["missing_cwd"]}
    assert str(Path(world.gone).parent / "vanished") in missing and world.alpha not in missing
    code, shown = cli("foreign-bin", "show", scope["key"])
    assert [e["title"] for e in shown["entries"]] == ["Gone fact"]
    assert "Gone fact" in shown["summary"]


def test_restore_moves_the_scope_back_byte_identical(world: World) -> None:
    b = WorkspaceMemoryBin(world.wm_root)
    key = scope_key(world.gone)
    src = world.wm_root / "archived" / key
    before = _rel(tree_state(src), src)
    dst = b.restore(key)
    assert dst == world.wm_root / "scopes" / key and not src.exists()
    assert _rel(tree_state(dst), dst) == before
    assert b.archived() == []


def test_restore_is_refused_while_an_active_scope_has_the_key(world: World) -> None:
    key = scope_key(world.gone)
    wm_scope(
        world.wm_root, world.gone, [wm_entry("mem-eeeeeeeeee01", "fact", "New", "A new scope for the same folder.")]
    )
    before = tree_state(world.wm_root)
    b = WorkspaceMemoryBin(world.wm_root)
    assert b.archived()[0].active_exists
    with pytest.raises(ConflictError):
        b.restore(key)
    assert tree_state(world.wm_root) == before


def test_purge_needs_the_typed_name(world: World, cli: Any) -> None:
    key = scope_key(world.gone)
    before = tree_state(world.wm_root)
    code, data = cli("foreign-bin", "purge", key, "--confirm", "wrong")
    assert code == 8 and data["error"]["code"] == "confirmation_required"
    assert tree_state(world.wm_root) == before
    with pytest.raises(ConfirmationRequiredError):
        WorkspaceMemoryBin(world.wm_root).purge(key, "Gone")
    code, data = cli("foreign-bin", "purge", key, "--confirm", "gone")
    assert code == 0 and data == {"purged": key}
    assert not (world.wm_root / "archived" / key).exists()
    assert not (world.wm_root / ".dsh-memory-purge").exists()
    assert (world.wm_root / "scopes" / scope_key(world.alpha)).is_dir()  # nothing else touched


def test_archive_only_scopes_whose_folder_is_gone(world: World, cli: Any) -> None:
    b = WorkspaceMemoryBin(world.wm_root)
    with pytest.raises(UsageError):
        b.archive(scope_key(world.alpha))
    vanished = str(Path(world.gone).parent / "vanished")
    code, _data = cli("foreign-bin", "archive", scope_key(vanished))
    assert code == 0
    assert (world.wm_root / "archived" / scope_key(vanished) / "memory_entries.json").is_file()
    assert vanished in {s.cwd for s in b.archived()}


def test_a_scope_whose_key_does_not_match_is_never_restored(world: World) -> None:
    bogus = world.wm_root / "archived" / "ws-11111111111111111111"
    wm_scope(world.wm_root, world.alpha, [], archived=True, key=bogus.name)
    b = WorkspaceMemoryBin(world.wm_root)
    assert bogus.name not in {s.key for s in b.archived()}
    with pytest.raises(UsageError) as caught:
        b.restore(bogus.name)
    assert caught.value.reason == "not-a-scope"
    assert bogus.is_dir()


_CHILD = """
import sys
from pathlib import Path
from core.sources.workspace_memory_bin import WorkspaceMemoryBin
b = WorkspaceMemoryBin(Path(sys.argv[1]))
sys.stdout.write("ready\\n"); sys.stdout.flush()
sys.stdin.readline()
b.restore(sys.argv[2])
sys.stdout.write("done\\n"); sys.stdout.flush()
"""


@pytest.mark.slow
def test_a_restore_killed_at_any_moment_leaves_the_scope_old_or_new(tmp_path: Path) -> None:
    outcomes = {"old": 0, "new": 0}
    rng = random.Random(12)
    # Delays from 0 to well past the restore's own duration, so kills land before, during and after.
    delays = [rng.uniform(0, 0.004) for _ in range(6)] + [i * 0.004 for i in range(10)] + [0.5]
    for i, delay in enumerate(delays):
        root = tmp_path / f"wm{i}"
        cwd = str(tmp_path / f"gone{i}")
        entries = [wm_entry(f"mem-{n:012x}", "fact", f"Fact {n}", f"Fact number {n}.") for n in range(50)]
        wm_scope(root, cwd, entries, archived=True)
        key = scope_key(cwd)
        src, dst = root / "archived" / key, root / "scopes" / key
        expected = _rel(tree_state(src), src)
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(root), key],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline() == "ready\n"
        child.stdin.write("go\n")
        child.stdin.flush()
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        child.stdout.close()
        child.stdin.close()
        in_src, in_dst = src.exists(), dst.exists()
        assert in_src != in_dst, "the scope must be in exactly one place"
        where = src if in_src else dst
        assert _rel(tree_state(where), where) == expected
        outcomes["old" if in_src else "new"] += 1
        if in_src:  # a later restore still works
            WorkspaceMemoryBin(root).restore(key)
            assert _rel(tree_state(dst), dst) == expected
    print("restore killed:", outcomes)
    assert outcomes["old"] and outcomes["new"]


def test_an_interrupted_purge_is_reported_and_finished_by_the_next_purge(world: World, cli: Any) -> None:
    leftover = world.wm_root / ".dsh-memory-purge" / "ws-22222222222222222222-abcd"
    (leftover / "checkpoints").mkdir(parents=True)
    (leftover / "memory_entries.json").write_text("[]", encoding="utf-8")
    code, data = cli("foreign-bin", "list")
    assert code == 0
    assert data["interrupted_purges"] == [str(leftover)]
    assert [s["cwd"] for s in data["archived"]] == [world.gone]  # the leftover is not a scope
    WorkspaceMemoryBin(world.wm_root).purge(scope_key(world.gone), "gone")
    assert not (world.wm_root / ".dsh-memory-purge").exists()
