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


def test_commit_into_a_scope_loaded_from_the_cache(tmp_path: Path) -> None:
    """A scope read from the cache (weights filled in on first use) re-indexes like a fresh one."""
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()
    index._ANALYSES.clear()
    store = FileStore(root)
    ix = SearchIndex(store)
    assert ix.refresh().from_cache == 4
    snap = store.find_workspace("/w/2")
    assert snap is not None
    ix.apply(store.commit(snap.key, [PutOp(record=rec("new", "okapi zebra"))], snap.revision))
    fresh = _fresh(root, cache=False)
    for q in ("zebra", "okapi", "打包为什么慢", "electron builder", "zeb"):
        assert ix.search(q, limit=100) == fresh.search(q, limit=100)


def test_cache_written_from_a_cached_index_round_trips(tmp_path: Path) -> None:
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()
    index._ANALYSES.clear()
    loaded = SearchIndex(FileStore(root))
    loaded.refresh()
    assert loaded.save_cache() is True  # tables never looked up are written back as loaded
    index._ANALYSES.clear()
    again = SearchIndex(FileStore(root))
    assert again.refresh().from_cache == 4
    fresh = _fresh(root, cache=False)
    for q in ("zebra", "pnpm", "打包", "electron-builder"):
        assert again.search(q, limit=100) == fresh.search(q, limit=100)


def test_inconsistent_cache_with_a_valid_checksum_does_not_crash(tmp_path: Path) -> None:
    import hashlib
    import marshal

    from core.search import cache

    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()
    path = root / ".manager" / "cache" / CACHE_FILE
    data = path.read_bytes()
    obj = marshal.loads(data[len(cache.MAGIC) + 32 :])
    for scope in obj["scopes"]:
        ids, ends, refs = scope["postings"]
        scope["postings"] = (ids, ends, b"\xff" * len(refs))  # document numbers out of range
        w_ids, w_vals, w_ends = scope["weights"]
        scope["weights"] = (b"\xff" * len(w_ids), w_vals, w_ends)  # term numbers out of range
    payload = marshal.dumps(obj)
    path.write_bytes(cache.MAGIC + hashlib.sha256(payload).digest() + payload)
    index._ANALYSES.clear()
    ix = SearchIndex(FileStore(root))
    ix.refresh()
    for q in ("zebra", "打包", "zeb", '"use pnpm"'):
        ix.search(q, limit=100)  # wrong answers are possible for a forged cache; exceptions are not


def test_cache_weights_out_of_range_are_rederived_from_the_text(tmp_path: Path) -> None:
    import hashlib
    import marshal

    from core.search import cache

    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()
    path = root / ".manager" / "cache" / CACHE_FILE
    data = path.read_bytes()
    obj = marshal.loads(data[len(cache.MAGIC) + 32 :])
    for scope in obj["scopes"]:
        w_ids, w_vals, w_ends = scope["weights"]
        scope["weights"] = (b"\xff" * len(w_ids), w_vals, w_ends)
    payload = marshal.dumps(obj)
    path.write_bytes(cache.MAGIC + hashlib.sha256(payload).digest() + payload)
    index._ANALYSES.clear()
    ix = SearchIndex(FileStore(root))
    assert ix.refresh().from_cache == 4
    fresh = _fresh(root, cache=False)
    for q in ("zebra", "打包为什么慢", "zeb", "electron builder"):
        assert ix.search(q, limit=100) == fresh.search(q, limit=100)


def test_cache_of_an_earlier_layout_is_replaced(tmp_path: Path) -> None:
    root = build(tmp_path)
    folder = root / ".manager" / "cache"
    folder.mkdir(parents=True)
    (folder / "search-index-v2.bin").write_bytes(b"DSHSRCH2" + b"\0" * 64)
    ix = SearchIndex(FileStore(root))
    assert ix.refresh().from_cache == 0
    assert (folder / CACHE_FILE).is_file()
    assert not (folder / "search-index-v2.bin").exists()


def test_warm_up_persists_seam_tables_and_reuses_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.search import cache

    monkeypatch.setattr(index, "AUTO_SAVE_DOCS", 1)
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()  # the cache, without seam tables
    seams_file = root / ".manager" / "cache" / cache.SEAMS_FILE
    index._ANALYSES.clear()
    first = SearchIndex(FileStore(root))
    first.refresh()
    first.warm_up()  # built them all: rewrites the cache with them
    written = seams_file.stat().st_mtime_ns
    index._ANALYSES.clear()
    second = SearchIndex(FileStore(root))
    assert second.refresh().from_cache == 4
    second.warm_up()
    assert seams_file.stat().st_mtime_ns == written  # nothing new to save
    assert all(isinstance(seg.lazy["seams"], cache.LazyPostings) for seg in second._state.segments.values())
    fresh = _fresh(root, cache=False)
    for q in ('"use pnpm"', "zebra 1 2", "用了 electron", '"1 2 打包"', "electron builder"):
        assert second.search(q, limit=100) == fresh.search(q, limit=100)


@pytest.mark.parametrize("damage", [lambda b: b[:-3], lambda b: b"junk", "other generation"])
def test_damaged_or_unpaired_seams_file_is_ignored(tmp_path: Path, damage: object) -> None:
    from core.search import cache

    root = build(tmp_path)
    ix = SearchIndex(FileStore(root))
    ix.refresh()
    ix.warm_up()
    ix.save_cache()
    folder = root / ".manager" / "cache"
    if damage == "other generation":
        kept = (folder / cache.SEAMS_FILE).read_bytes()
        ix.save_cache()  # a new generation; put the old seams file back
        (folder / cache.SEAMS_FILE).write_bytes(kept)
    else:
        path = folder / cache.SEAMS_FILE
        path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    index._ANALYSES.clear()
    again = SearchIndex(FileStore(root))
    assert again.refresh().from_cache == 4
    again.warm_up()
    assert not any(isinstance(seg.lazy["seams"], cache.LazyPostings) for seg in again._state.segments.values())
    fresh = _fresh(root, cache=False)
    for q in ('"use pnpm"', "zebra 1 2", "用了 electron"):
        assert again.search(q, limit=100) == fresh.search(q, limit=100)


def test_warm_up_after_a_cold_open_writes_only_the_seams_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.search import cache

    monkeypatch.setattr(index, "AUTO_SAVE_DOCS", 1)
    root = build(tmp_path)
    folder = root / ".manager" / "cache"
    ix = SearchIndex(FileStore(root))
    ix.refresh()  # no cache yet: writes it
    main_written = (folder / CACHE_FILE).stat().st_mtime_ns
    time.sleep(0.01)  # (so a rewrite would show in the mtime; not an assertion on timing)
    ix.warm_up()
    assert (folder / CACHE_FILE).stat().st_mtime_ns == main_written
    index._ANALYSES.clear()
    again = SearchIndex(FileStore(root))
    assert again.refresh().from_cache == 4
    again.warm_up()
    assert all(isinstance(seg.lazy["seams"], cache.LazyPostings) for seg in again._state.segments.values())
