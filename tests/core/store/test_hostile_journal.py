"""Issue 9, items 6 and 7: a damaged journal is never trusted, and purge is a journaled operation."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hostile_support import CWD, disk, rec

from core.cli.main import main
from core.models import DeleteOp, PutOp
from core.store import journal, journal_doc, journal_recovery
from core.store.fs import FileStore


class Died(BaseException):
    """Stands for SIGKILL: raised out of the apply step, with the in-process undo disabled."""


def _crash_mid_apply(monkeypatch: pytest.MonkeyPatch, store: FileStore, key: str, after_ops: int) -> None:
    count = {"n": 0}
    for fn in ("_apply_replace", "_apply_create", "_apply_delete"):
        real = getattr(journal, fn)

        def wrapper(*args: object, _real: object = real, **kwargs: object) -> object:
            if count["n"] >= after_ops:
                raise Died
            count["n"] += 1
            return _real(*args, **kwargs)  # type: ignore[operator]

        monkeypatch.setattr(journal, fn, wrapper)
    monkeypatch.setattr(journal, "_abort_after_commit_point", lambda *a: False)
    snap = store.read_workspace(key)
    with pytest.raises(Died):
        store.commit(
            key,
            [PutOp(record=rec("a", "\nnew a\n")), DeleteOp(name="b"), PutOp(record=rec("c", "\nnew c\n"))],
            snap.revision,
        )


def _setup(tmp_path: Path) -> tuple[Path, FileStore, str]:
    root = tmp_path / "m"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    store.commit(s.key, [PutOp(record=rec("a")), PutOp(record=rec("b"))], s.revision)
    return root, store, s.key


def _state(store: FileStore, key: str) -> tuple[tuple[str, str], ...]:
    snap = store.read_workspace(key)
    return tuple((e.name, e.record.body if e.record else "?") for e in snap.entries)


OLD = (("a", "\nA fact.\n"), ("b", "\nA fact.\n"))
NEW = (("a", "\nnew a\n"), ("c", "\nnew c\n"))


def _journal_file(root: Path, key: str) -> Path:
    return journal_doc.staging_dir(root, key) / journal_doc.JOURNAL_NAMES[0]


@pytest.mark.parametrize("applied", [0, 1, 2])
def test_a_journal_cut_by_one_byte_mid_apply_still_rolls_forward(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, applied: int
) -> None:
    root, store, key = _setup(tmp_path)
    with monkeypatch.context() as m:
        _crash_mid_apply(m, store, key, applied)
    j = _journal_file(root, key)
    j.write_bytes(j.read_bytes()[:-1])
    again = FileStore(root)
    assert _state(again, key) == NEW  # never half-applied
    assert again.status().quarantined == 1
    assert any(".manager/quarantine/" in p.path for p in again.inspect.check())


@pytest.mark.parametrize(
    "damage",
    [
        "missing-keys",
        "directory",
        "bad-checksum",
        "path-traversal",
        "not-json",
    ],
)
def test_a_damaged_journal_is_quarantined_never_acted_on_and_never_crashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    root, store, key = _setup(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("outside the root\n")
    with monkeypatch.context() as m:
        _crash_mid_apply(m, store, key, 1)
    j = _journal_file(root, key)  # damage both copies: nothing valid is left to act on
    doc = json.loads(j.read_bytes().split(b"\n")[0])
    if damage == "missing-keys":
        j.write_text(json.dumps({"version": 2, "state": "commit"}))
    elif damage == "directory":
        j.unlink()
        j.mkdir()
    elif damage == "bad-checksum":
        doc["ops"][0]["new_hash"] = "0" * 16
        j.write_text(json.dumps(doc) + "\n" + json.dumps(doc))
    elif damage == "path-traversal":
        doc["ops"][1]["name"] = "../../../victim.txt"
        j.write_text(json.dumps(doc) + "\n" + json.dumps(doc))
    else:
        j.write_bytes(b"\x00garbage{")
    for args in (["status"], ["check"], ["show", "--cwd", CWD], ["global", "show"]):
        out = io.StringIO()
        code = main(["--root", str(root), "--json", *args], stdout=out, stderr=io.StringIO())
        assert code in (0, 1), (args, out.getvalue())
        assert "Traceback" not in out.getvalue()
    assert victim.read_text() == "outside the root\n"
    again = FileStore(root)
    assert again.status().quarantined >= 1
    problems = [p for p in again.inspect.check() if "quarantine" in p.path]
    assert problems and "never acted on" in problems[0].reason
    assert journal_recovery.pending(root) == []  # settled: moved aside whole, with the staged files kept


def test_one_damaged_copy_uses_the_other(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, store, key = _setup(tmp_path)
    with monkeypatch.context() as m:
        _crash_mid_apply(m, store, key, 1)
    j = _journal_file(root, key)
    first = j.read_bytes().split(b"\n")[0]
    j.write_bytes(first + b"\n{}")
    again = FileStore(root)
    assert _state(again, key) == NEW
    assert again.recovered == [(key, "rolled forward")]


def test_a_rollback_journal_undoes_from_what_is_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, store, key = _setup(tmp_path)
    with monkeypatch.context() as m:
        _crash_mid_apply(m, store, key, 2)
    journal._mark_rollback(journal_doc.staging_dir(root, key))
    again = FileStore(root)
    assert _state(again, key) == OLD
    assert again.recovered == [(key, "rolled back")]
    assert again.history.entries(key) == []


def test_an_unknown_staging_entry_is_quarantined_not_trusted(tmp_path: Path) -> None:
    root, _store, _key = _setup(tmp_path)
    weird = root / ".manager" / "staging" / "../evil"
    (root / ".manager" / "staging" / "c+b+a").mkdir(parents=True)  # not in lock order: not ours
    before = disk(root)
    again = FileStore(root)
    assert disk(root) == before and not weird.exists()
    assert again.status().quarantined == 1


# --- item 7: purge ------------------------------------------------------------------------------
def test_a_purge_killed_before_dropping_history_is_finished_on_the_next_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "m"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("creds", "\npassword=hunter2024\n"))], s.revision, allow_secrets=True)
    store.commit(s.key, [DeleteOp(name="creds")], s.revision)
    assert store.history.entries(s.key)
    store.recycle.archive(s.key)
    real = journal_recovery.remove_tree_quietly

    def die_on_history(path: Path) -> None:
        if "history" in path.parts:
            raise Died
        real(path)

    with monkeypatch.context() as m:
        m.setattr(journal_recovery, "remove_tree_quietly", die_on_history)
        with pytest.raises(Died):
            store.recycle.purge(s.key, "hostile")
    assert not (root / "archived" / s.key).exists()
    assert (root / ".manager" / "history" / s.key).exists()  # the killed purge left it behind
    again = FileStore(root)
    assert (s.key, "purged") in again.recovered
    assert not (root / ".manager" / "history" / s.key).exists()
    assert not any(b"hunter2024" in p.read_bytes() for p in root.rglob("*") if p.is_file())


def test_check_reports_orphaned_history(tmp_path: Path) -> None:
    root = tmp_path / "m"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("a"))], s.revision)
    store.commit(s.key, [DeleteOp(name="a")], s.revision)
    import shutil

    shutil.rmtree(root / "workspaces" / s.key)  # deleted by hand: its history is orphaned
    problems = [p for p in store.inspect.check() if p.path == f".manager/history/{s.key}"]
    assert problems and "no longer exists" in problems[0].reason


def test_journal_paths_are_confined_by_the_schema() -> None:
    doc = journal_doc.make_doc(
        "commit",
        ["k-0123456789abcdef"],
        ops=[journal_doc.OpDoc(scope=0, name="a.md", staged="0001.new", old_hash=None, new_hash="0" * 16)],
    )
    raw = json.loads(doc.model_dump_json())
    for bad in ("../x", "a/b.md", ".", ".."):
        raw["ops"][0]["name"] = bad
        with pytest.raises(ValueError):
            journal_doc.JournalDoc.model_validate_json(json.dumps(raw))
    raw["ops"][0]["name"] = "a.md"
    raw["scopes"] = ["../../etc"]
    with pytest.raises(ValueError):
        journal_doc.JournalDoc.model_validate_json(json.dumps(raw))
