"""The stale-memory queue across a root: marks kept by the store (not in frontmatter), scans that cancel."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.errors import CancelledError
from core.load_meter import root_loads
from core.models import PutOp, Record
from core.staleness import mark_reviewed, near_duplicates, read_marks, scan
from core.store.files import STALE_MARKS
from core.store.fs import FileStore


def _rec(name: str, body: str, description: str | None = None) -> Record:
    return Record(name=name, description=description or f"About {name}", type="project", body=f"\n{body}\n")


@pytest.fixture
def store(tmp_path: Path) -> FileStore:
    store = FileStore(tmp_path / "memory")
    for folder in ("shop", "blog"):
        snap = store.create_workspace(str(tmp_path / folder))
        ops = [
            PutOp(record=_rec("deploy", "We deploy with fly.io, see [[gone]].")),
            PutOp(record=_rec("style", "Tabs, not spaces.")),
        ]
        store.commit(snap.key, ops, snap.revision)
    return store


def test_mark_reviewed_is_private_state_and_a_change_brings_the_record_back(store: FileStore) -> None:
    shop = store.list_workspaces()[0]
    found = scan(store, [shop.key])
    assert {(i.name, i.reason) for i in found.items} == {("deploy", "broken-links")}
    [item] = found.items
    assert item.links == ("gone",) and item.key == shop.key
    snap = found.snapshots[shop.key]
    marks = mark_reviewed(store, snap, ["deploy"])
    assert marks == {"deploy": snap.get("deploy").revision}  # type: ignore[union-attr]
    # Kept outside the record: the record file is byte-for-byte what it was, the marks live in .manager.
    assert store.root is not None
    record_file = store.root / "workspaces" / shop.key / "deploy.md"
    assert "reviewed" not in record_file.read_text()
    marks_file = store.root / ".manager" / "stale-reviewed" / f"{shop.key}.json"
    assert marks_file.is_file() and oct(marks_file.stat().st_mode & 0o777) == "0o600"
    assert scan(store, [shop.key]).items == []
    # Someone edits the record: it is back in the queue.
    changed = _rec("deploy", "We deploy with fly.io, see [[gone]] (v2).")
    store.commit(shop.key, [PutOp(record=changed)], snap.revision)
    assert [i.name for i in scan(store, [shop.key]).items] == ["deploy"]
    # The other workspace was never marked.
    other = store.list_workspaces()[1]
    assert read_marks(store, other.key) == {}
    assert [i.name for i in scan(store, [other.key]).items] == ["deploy"]


def test_unreadable_marks_only_put_records_back(store: FileStore) -> None:
    key = store.list_workspaces()[0].key
    store.files(STALE_MARKS).write(key, "{not json")
    assert read_marks(store, key) == {}
    assert len(scan(store, [key]).items) == 1


def test_marks_through_a_symlinked_folder_are_refused(store: FileStore, tmp_path: Path) -> None:
    from core.errors import StorageError

    assert store.root is not None
    outside = tmp_path / "outside"
    outside.mkdir()
    (store.root / ".manager").mkdir(exist_ok=True)
    (store.root / ".manager" / "stale-reviewed").symlink_to(outside)
    snap = store.read_workspace(store.list_workspaces()[0].key)
    with pytest.raises(StorageError):
        mark_reviewed(store, snap, ["deploy"])
    assert list(outside.iterdir()) == []


def test_scan_reports_progress_and_cancels_between_workspaces(store: FileStore) -> None:
    seen: list[tuple[int, int]] = []
    whole = scan(store, progress=lambda done, total, _key: seen.append((done, total)))
    assert seen[0] == (0, 2) and seen[-1] == (2, 2) and len(whole.snapshots) == 2 and whole.records == 4
    calls = iter([False, True])
    with pytest.raises(CancelledError):
        scan(store, cancelled=lambda: next(calls))


def test_old_records_use_the_chosen_number_of_days(store: FileStore) -> None:
    assert store.root is not None
    key = store.list_workspaces()[0].key
    old = (datetime.now(UTC) - timedelta(days=40)).timestamp()
    os.utime(store.root / "workspaces" / key / "style.md", (old, old))
    assert [i.days for i in scan(store, [key], older_than_days=30).items if i.reason == "old"] == [40]
    assert not [i for i in scan(store, [key], older_than_days=60).items if i.reason == "old"]


def test_near_duplicates_in_english_and_chinese() -> None:
    records = [
        _rec("pnpm", "Use pnpm, not npm.", "Package manager"),
        _rec("pnpm-again", "Not npm, use pnpm.", "Package manager"),
        _rec("db", "Postgres 16 with pgbouncer in front.", "Database"),
        _rec("cn-a", "部署前先运行全部测试，然后再发布。", "发布流程"),
        _rec("cn-b", "部署前先运行全部测试，再发布。", "发布流程"),
    ]
    dups = near_duplicates(records)
    assert dups["pnpm"][0] == "pnpm-again" and dups["pnpm-again"][0] == "pnpm"
    assert dups["cn-a"][0] == "cn-b" and "db" not in dups


def test_load_meter_rows_are_heaviest_first_and_marked_over(store: FileStore) -> None:
    key = store.list_workspaces()[0].key
    snap = store.read_workspace(key)
    many = [PutOp(record=_rec(f"note-{i}", "x", description="a long description " * 8)) for i in range(30)]
    store.commit(key, many, snap.revision)
    rows = root_loads(store, warning_tokens=500)
    assert rows[0].key == key and rows[0].load.over and rows[0].records == 32
    assert not rows[1].load.over and rows[1].load.tokens < rows[0].load.tokens


def test_prose_with_slashes_is_not_a_path() -> None:
    from core.staleness import _mentioned_paths

    text = "Cache hit/miss and input/output; see src/api/errors.ts (errors.ts), db/migrations/ and CHANGELOG.md."
    assert _mentioned_paths(text) == ["src/api/errors.ts", "db/migrations/", "CHANGELOG.md"]


def test_the_scan_normalizes_like_consolidation_similarity() -> None:
    from core.consolidation.similarity import fact_text
    from core.staleness import _fact_text

    samples = [
        _rec("a", "**Why:** Use `pnpm`, not npm! See src/app.py_x & ＡＢＣ１２３.", "Tabs—not spaces"),
        _rec("b", "部署前先运行全部测试，然后再发布。\n\n**How to apply:** 每次 release 前。", "发布流程 ①"),
        _rec("c", "Ünïcödé ß straße; café… ½ x²", "Mixed"),
    ]
    for r in samples:
        assert _fact_text(r) == fact_text(r)


def test_very_large_workspaces_skip_the_pairwise_check(store: FileStore, monkeypatch: pytest.MonkeyPatch) -> None:
    import core.staleness as staleness

    key = store.list_workspaces()[0].key
    snap = store.read_workspace(key)
    store.commit(key, [PutOp(record=_rec("deploy-copy", "We deploy with fly.io, see [[gone]]."))], snap.revision)
    assert any(i.reason == "near-duplicate" for i in scan(store, [key]).items)
    monkeypatch.setattr(staleness, "MAX_DUPLICATE_RECORDS", 2)
    found = scan(store, [key])
    assert not any(i.reason == "near-duplicate" for i in found.items) and found.no_duplicate_check == [key]


def test_the_pairwise_check_is_cancellable_inside_a_workspace() -> None:
    records = [_rec(f"r{i}", f"Fact number {i} about the build.") for i in range(120)]
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) >= 2

    with pytest.raises(CancelledError):
        near_duplicates(records, cancelled=cancelled)
    assert len(asked) == 2  # asked every 50 records, stopped at the second
