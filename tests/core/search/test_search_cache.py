"""The persisted cache under <root>/.manager/cache: used when intact, rebuilt when damaged or stale."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from search_support import age_files, put, rec, set_mtime

from core.models import PutOp
from core.search import SearchIndex, index
from core.search.cache import CACHE_FILE
from core.store.fs import FileStore
from core.store.memory import InMemoryStore


@pytest.fixture(autouse=True)
def _no_process_analysis_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts like a fresh process: no analyses shared through the module cache."""
    monkeypatch.setattr(index, "_ANALYSES", {})


def build(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    store = FileStore(root)
    store.replace_global("## Tips\nuse pnpm 打包\n", None)
    for i in range(3):
        put(store, f"/w/{i}", [rec(f"r-{j}", f"zebra {i} {j} 打包用了 electron-builder") for j in range(4)])
    age_files(root)
    return root


def hits(ix: SearchIndex, query: str) -> list[tuple[str, str]]:
    return [(h.scope_key, h.name) for h in ix.search(query, limit=100).hits]


def test_cache_is_written_and_used(tmp_path: Path) -> None:
    root = build(tmp_path)
    first = SearchIndex(FileStore(root))
    s1 = first.refresh()
    assert s1.from_cache == 0 and s1.docs_reindexed == 13
    assert (root / ".manager" / "cache" / CACHE_FILE).is_file()
    index._ANALYSES.clear()
    second = SearchIndex(FileStore(root))
    s2 = second.refresh()
    assert (s2.from_cache, s2.scopes_reread, s2.docs_reindexed) == (4, 0, 0)
    for q in ("zebra", "打包为什么慢", "electron builder", "pnpm"):
        assert first.search(q, limit=100) == second.search(q, limit=100)


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:-10],
        lambda b: b[:20],
        lambda b: b"garbage",
        lambda b: b[:40] + bytes([b[40] ^ 0xFF]) + b[41:],
        lambda b: b"",
    ],
)
def test_damaged_cache_rebuilds_itself(tmp_path: Path, damage: object) -> None:
    root = build(tmp_path)
    expected = hits(_fresh(root, cache=False), "zebra")
    SearchIndex(FileStore(root)).refresh()
    path = root / ".manager" / "cache" / CACHE_FILE
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    index._ANALYSES.clear()
    ix = SearchIndex(FileStore(root))
    stats = ix.refresh()
    assert stats.from_cache == 0 and stats.docs_reindexed == 13
    assert hits(ix, "zebra") == expected
    index._ANALYSES.clear()
    again = SearchIndex(FileStore(root)).refresh()  # the rewritten cache is intact
    assert again.from_cache == 4


def test_edits_made_while_closed_win_over_the_cache(tmp_path: Path) -> None:
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()
    store = FileStore(root)
    snap = store.find_workspace("/w/1")
    assert snap is not None
    path = root / "workspaces" / snap.key / "r-2.md"
    path.write_text(path.read_text(encoding="utf-8").replace("zebra", "okapi"), encoding="utf-8")
    set_mtime(path, time.time() - 7200)
    index._ANALYSES.clear()
    ix = SearchIndex(FileStore(root))
    stats = ix.refresh()
    assert (stats.from_cache, stats.scopes_reread, stats.docs_reindexed) == (3, 1, 1)
    assert hits(ix, "okapi") == [(snap.key, "r-2")]
    assert (snap.key, "r-2") not in hits(ix, "zebra")


def test_no_cache_without_a_root() -> None:
    store = InMemoryStore()
    put(store, "/w", [rec("a", "zebra")])
    ix = SearchIndex(store)
    ix.refresh()
    assert ix.save_cache() is False
    assert hits(ix, "zebra") == [(store.list_workspaces()[0].key, "a")]


def _fresh(root: Path, *, cache: bool) -> SearchIndex:
    ix = SearchIndex(FileStore(root), cache_dir=cache)
    ix.refresh()
    return ix


def test_small_changes_do_not_rewrite_the_cache_every_refresh(tmp_path: Path) -> None:
    root = build(tmp_path)
    store = FileStore(root)
    ix = SearchIndex(store)
    ix.refresh()
    path = root / ".manager" / "cache" / CACHE_FILE
    before = path.stat().st_mtime_ns
    snap = store.find_workspace("/w/0")
    assert snap is not None
    store.commit(snap.key, [PutOp(record=rec("new", "okapi"))], snap.revision)
    ix.refresh()
    ix.refresh()
    assert path.stat().st_mtime_ns == before
    assert ix.save_cache() is True
    assert path.stat().st_mtime_ns != before
