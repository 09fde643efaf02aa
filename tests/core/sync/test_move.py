"""Moving a workspace to a new folder: a plain re-key, and a merge into an existing workspace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.errors import InvalidRecordError, NotFoundError, UsageError
from core.keys import workspace_key
from core.store.files import RECEIPTS
from core.store.fs import FileStore
from core.sync.move import apply_move, finish_pending_moves, plan_move
from core.sync.review import Resolution
from tests.core.sync.helpers import put, rec, texts


def test_move_to_a_new_folder_rekeys_and_archives_the_old_copy(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    old = tmp_path / "code" / "shop"
    key = put(store, old, rec("alpha"), rec("beta"))
    new = tmp_path / "code" / "shop-app"
    new.mkdir(parents=True)
    plan = plan_move(store, key, str(new))
    assert not plan.is_merge and not plan.conflicts
    result = apply_move(store, plan, {})
    assert result.target_key == workspace_key(str(new))
    assert texts(store, result.target_key) == {"alpha": "\nA durable fact.\n", "beta": "\nA durable fact.\n"}
    assert store.find_workspace(str(new)) is not None
    with pytest.raises(NotFoundError):
        store.read_workspace(key)
    # The old copy is in the Recycle Bin, byte for byte, and the receipt tells the story.
    assert {e.name for e in store.read_workspace(key, archived=True).entries} == {"alpha", "beta"}
    receipt = store.files(RECEIPTS).read(result.receipt_id)
    assert receipt is not None and "Moved shop to" in receipt and "alpha, beta" in receipt


def test_move_into_an_existing_workspace_is_reviewed_then_committed(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    key = put(store, tmp_path / "old", rec("only-old"), rec("same"), rec("both", "old text"), rec("both2", "x"))
    target = tmp_path / "new"
    target_key = put(store, target, rec("only-new"), rec("same"), rec("both", "new text"), rec("both2", "y"))
    plan = plan_move(store, key, str(target))
    assert plan.is_merge
    assert [n for n, _ in plan.incoming] == ["only-old"]
    assert plan.identical == ("same",)
    item = {i.name: i for i in plan.conflicts}["both"]
    assert "old text" in (item.theirs or "") and "new text" in (item.mine or "")
    # Nothing is overwritten unseen: without a choice for every conflict nothing is written.
    with pytest.raises(UsageError):
        apply_move(store, plan, {"both": Resolution(choice="theirs")})
    assert set(texts(store, target_key)) == {"only-new", "same", "both", "both2"}
    assert store.read_workspace(key).revision == plan.source_revision
    edited = (item.theirs or "").replace("old text", "merged text")
    result = apply_move(
        store, plan, {"both": Resolution(choice="edited", text=edited), "both2": Resolution(choice="mine")}
    )
    got = texts(store, target_key)
    assert got["both"] == "\nmerged text\n" and got["both2"] == "\ny\n" and got["only-old"] == "\nA durable fact.\n"
    assert result.replaced == ("both",) and result.kept == ("both2",)
    # History keeps the replaced version of the target.
    old_versions = [store.history.read(h.id) for h in store.history.entries(target_key, "both")]
    assert any(b"new text" in v for v in old_versions)


def test_an_edited_version_that_is_not_a_record_writes_nothing(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    key = put(store, tmp_path / "a", rec("both", "one"))
    target_key = put(store, tmp_path / "b", rec("both", "two"))
    plan = plan_move(store, key, str(tmp_path / "b"))
    with pytest.raises(InvalidRecordError):
        apply_move(store, plan, {"both": Resolution(choice="edited", text="no frontmatter")})
    assert texts(store, target_key) == {"both": "\ntwo\n"}
    assert store.read_workspace(key).revision == plan.source_revision


class _Crash(Exception):
    pass


def test_a_move_interrupted_after_its_transaction_is_already_whole(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    key = put(store, tmp_path / "a", rec("alpha"))
    plan = plan_move(store, key, str(tmp_path / "b"))

    def crash(stage: str) -> None:
        if stage == "committed":
            raise _Crash

    with pytest.raises(_Crash):
        apply_move(store, plan, {}, step=crash)
    reopened = FileStore(tmp_path / "memory")
    # One transaction wrote the target and archived the source: nothing is left to finish.
    assert finish_pending_moves(reopened) == []
    with pytest.raises(NotFoundError):
        reopened.read_workspace(key)
    assert texts(reopened, plan.target_key) == {"alpha": "\nA durable fact.\n"}


def test_a_journal_of_the_earlier_two_step_move_is_still_finished(tmp_path: Path) -> None:
    from core.sync import state

    store = FileStore(tmp_path / "memory")
    key = put(store, tmp_path / "a", rec("alpha"))
    source = store.read_workspace(key)
    assert store.root is not None
    moves = state.sync_dir(store.root) / "moves"
    moves.mkdir()
    state.write_json(
        moves / f"{key}.json",
        {"format": "dsh-move/1", "source": key, "source_revision": source.revision, "target": "ws-target"},
    )
    assert finish_pending_moves(store) == [key]
    with pytest.raises(NotFoundError):
        store.read_workspace(key)


@pytest.mark.parametrize("stage", ["planned", "committed", "archived"])
def test_a_move_killed_with_sigkill_is_old_or_new_as_a_whole(tmp_path: Path, stage: str) -> None:
    import subprocess
    import sys

    store = FileStore(tmp_path / "memory")
    key = put(store, tmp_path / "a", rec("alpha", "moved"), rec("beta"))
    target_key = put(store, tmp_path / "b", rec("alpha", "there"))
    proc = subprocess.run(
        [sys.executable, "-m", "tests.core.sync.move_child", str(tmp_path / "memory"), key, str(tmp_path / "b")],
        cwd=Path(__file__).resolve().parents[3], env={**os.environ, "DSH_MOVE_KILL_AT": stage},
        capture_output=True, check=False, timeout=120,
    )
    assert proc.returncode == -9, proc.stderr.decode()
    reopened = FileStore(tmp_path / "memory")
    if stage == "planned":  # killed before the transaction: both workspaces exactly as they were
        assert texts(reopened, target_key) == {"alpha": "\nthere\n"}
        assert texts(reopened, key) == {"alpha": "\nmoved\n", "beta": "\nA durable fact.\n"}
        return
    # After it: the target holds the chosen and moved records, the replaced one in history, and the
    # source is archived — by the same transaction, with no journal to finish.
    assert texts(reopened, target_key) == {"alpha": "\nmoved\n", "beta": "\nA durable fact.\n"}
    assert finish_pending_moves(reopened) == []
    with pytest.raises(NotFoundError):
        reopened.read_workspace(key)
    assert {e.name for e in reopened.read_workspace(key, archived=True).entries} == {"alpha", "beta"}
    assert any(b"there" in reopened.history.read(h.id) for h in reopened.history.entries(target_key, "alpha"))


def test_a_hand_formatted_record_moves_byte_for_byte(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    key = put(store, tmp_path / "a", rec("alpha"))
    hand = b'---\nname: beta\ndescription: "quoted, by hand"\nmetadata: {type: project}\n---\nbody\n'
    store.history.commit_versions(key, [("beta", hand)], store.read_workspace(key).revision)
    plan = plan_move(store, key, str(tmp_path / "b"))
    apply_move(store, plan, {})
    assert store.inspect.record_file(plan.target_key, "beta.md") == hand
