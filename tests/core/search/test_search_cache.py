"""The persisted index under <root>/.manager/cache (one SQLite row per scope): used when intact,
rebuilt when damaged or stale, rewritten one row at a time."""

from __future__ import annotations

import hashlib
import marshal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from search_support import age_files, age_recent, put, rec, set_mtime

from core.models import PutOp
from core.search import SearchIndex, cache, index
from core.search.cache import DB_FILE
from core.store.fs import FileStore
from core.store.memory import InMemoryStore


def build(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    store = FileStore(root)
    store.replace_global("## Tips\nuse pnpm 打包\n", None)
    for i in range(3):
        put(store, f"/w/{i}", [rec(f"r-{j}", f"zebra {i} {j} 打包用了 electron-builder") for j in range(4)])
    age_files(root)
    return root


def db_path(root: Path) -> Path:
    return root / ".manager" / "cache" / DB_FILE


def rows(root: Path) -> dict[str, tuple[str, bytes, bytes | None]]:
    """sid -> (token, payload, seams) of every row of the persisted index."""
    with sqlite3.connect(db_path(root)) as con:
        found = con.execute("SELECT sid, token, payload, seams FROM scopes")
        return {sid: (tok, pay, seams) for sid, tok, pay, seams in found}


def rewrite_rows(root: Path, change: Any) -> None:
    """Apply ``change(sid, payload) -> payload`` to every row (tests of damaged caches)."""
    with sqlite3.connect(db_path(root)) as con:
        for sid, payload in con.execute("SELECT sid, payload FROM scopes").fetchall():
            con.execute("UPDATE scopes SET payload = ? WHERE sid = ?", (change(sid, payload), sid))


def forge(payload: bytes, edit: Any) -> bytes:
    """A payload edited by ``edit(obj)`` and re-checksummed: passes the checksum, inconsistent inside."""
    obj = marshal.loads(payload[len(cache.MAGIC) + 32 :])
    edit(obj)
    data = marshal.dumps(obj)
    return cache.MAGIC + hashlib.sha256(data).digest() + data


def hits(ix: SearchIndex, query: str) -> list[tuple[str, str]]:
    return [(h.scope_key, h.name) for h in ix.search(query, limit=100).hits]


def test_cache_is_written_and_used(tmp_path: Path) -> None:
    root = build(tmp_path)
    first = SearchIndex(FileStore(root))
    s1 = first.refresh()
    assert s1.from_cache == 0 and s1.docs_reindexed == 13
    assert db_path(root).is_file() and len(rows(root)) == 4
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
def test_damaged_rows_are_rebuilt(tmp_path: Path, damage: Any) -> None:
    root = build(tmp_path)
    expected = hits(_fresh(root, cache=False), "zebra")
    SearchIndex(FileStore(root)).refresh()
    rewrite_rows(root, lambda _sid, payload: damage(payload))
    ix = SearchIndex(FileStore(root))
    ix.refresh()  # (opening reads the rows' metas only: a damaged payload is found when first read)
    assert hits(ix, "zebra") == expected  # the first search already re-read the damaged scopes
    assert ix.damaged_scopes() == []
    healed = rows(root)
    again = SearchIndex(FileStore(root))
    assert again.refresh().from_cache == 4
    assert hits(again, "zebra") == expected
    assert rows(root) == healed  # the rewritten rows are intact: nothing needed rewriting again


@pytest.mark.parametrize("damage", [lambda b: b[:-10], lambda b: b"garbage", lambda b: b[:40] + b"\xff" + b[41:]])
def test_a_damaged_meta_rebuilds_its_scope_when_opening(tmp_path: Path, damage: Any) -> None:
    root = build(tmp_path)
    expected = hits(_fresh(root, cache=False), "zebra")
    SearchIndex(FileStore(root)).refresh()
    with sqlite3.connect(db_path(root)) as con:
        for sid, meta in con.execute("SELECT sid, meta FROM scopes").fetchall():
            con.execute("UPDATE scopes SET meta = ? WHERE sid = ?", (damage(meta), sid))
    ix = SearchIndex(FileStore(root))
    stats = ix.refresh()
    assert stats.from_cache == 0 and stats.docs_reindexed == 13
    assert hits(ix, "zebra") == expected
    assert SearchIndex(FileStore(root)).refresh().from_cache == 4


def test_one_damaged_row_costs_only_its_scope(tmp_path: Path) -> None:
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()
    expected = hits(_fresh(root, cache=False), "zebra")
    victim = next(sid for sid in rows(root) if sid.startswith("w:"))
    rewrite_rows(root, lambda sid, payload: payload[:-5] if sid == victim else payload)
    before = {sid: row[0] for sid, row in rows(root).items()}
    ix = SearchIndex(FileStore(root))
    ix.refresh()
    assert hits(ix, "zebra") == expected
    after = {sid: row[0] for sid, row in rows(root).items()}
    assert {sid for sid in before if before[sid] != after[sid]} == {victim}  # only its row was rewritten


@pytest.mark.parametrize("content", [b"", b"not a database at all" * 100, b"SQLite format 3\x00" + b"\xff" * 200])
def test_a_file_that_is_not_our_database_is_replaced(tmp_path: Path, content: bytes) -> None:
    root = build(tmp_path)
    db_path(root).parent.mkdir(parents=True)
    db_path(root).write_bytes(content)
    ix = SearchIndex(FileStore(root))
    assert ix.refresh().from_cache == 0
    assert hits(ix, "zebra") == hits(_fresh(root, cache=False), "zebra")
    assert SearchIndex(FileStore(root)).refresh().from_cache == 4


def test_edits_made_while_closed_win_over_the_cache(tmp_path: Path) -> None:
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()
    store = FileStore(root)
    snap = store.find_workspace("/w/1")
    assert snap is not None
    path = root / "workspaces" / snap.key / "r-2.md"
    # An editor that saves by writing a new file and renaming it over the old one (as the store
    # does): the folder's mtime changes, so a plain refresh sees it.
    tmp = path.with_name("r-2.md.swp")
    tmp.write_text(path.read_text(encoding="utf-8").replace("zebra", "okapi"), encoding="utf-8")
    tmp.replace(path)
    age_recent(root)
    ix = SearchIndex(FileStore(root))
    stats = ix.refresh()
    assert (stats.from_cache, stats.scopes_reread, stats.docs_reindexed) == (3, 1, 1)
    assert hits(ix, "okapi") == [(snap.key, "r-2")]
    assert (snap.key, "r-2") not in hits(ix, "zebra")


def test_in_place_edits_made_while_closed_need_a_deep_refresh(tmp_path: Path) -> None:
    """A file rewritten in place keeps its folder's mtime: only a refresh that looks at every
    file's stat (``deep=True``, or ``keys=[...]`` for the scopes a watcher saw change) finds it."""
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()
    store = FileStore(root)
    snap = store.find_workspace("/w/1")
    assert snap is not None
    folder = root / "workspaces" / snap.key
    folder_mtime = folder.stat().st_mtime_ns
    path = folder / "r-2.md"
    path.write_text(path.read_text(encoding="utf-8").replace("zebra", "okapi"), encoding="utf-8")
    set_mtime(path, time.time() - 7200)
    assert folder.stat().st_mtime_ns == folder_mtime
    ix = SearchIndex(FileStore(root))
    assert ix.refresh().from_cache == 4  # trusted by its folder's stamp
    stats = ix.refresh(deep=True)
    assert (stats.scopes_reread, stats.docs_reindexed) == (1, 1)
    assert hits(ix, "okapi") == [(snap.key, "r-2")]
    path.write_text(path.read_text(encoding="utf-8").replace("okapi", "gnu"), encoding="utf-8")
    set_mtime(path, time.time() - 3600)
    other = SearchIndex(FileStore(root))
    other.refresh()
    assert other.refresh(keys=[snap.key]).docs_reindexed == 1
    assert hits(other, "gnu") == [(snap.key, "r-2")]


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


def test_one_commit_rewrites_one_row(tmp_path: Path) -> None:
    root = build(tmp_path)
    store = FileStore(root)
    ix = SearchIndex(store)
    ix.refresh()
    before = rows(root)
    snap = store.find_workspace("/w/0")
    assert snap is not None
    store.commit(snap.key, [PutOp(record=rec("new", "okapi"))], snap.revision)
    age_recent(root)
    ix.refresh()
    after = rows(root)
    changed = {sid for sid in after if after[sid] != before.get(sid)}
    assert changed == {f"w:{snap.key}"}
    ix.refresh()
    assert rows(root) == after  # nothing changed: nothing written
    again = SearchIndex(FileStore(root))
    assert again.refresh().from_cache == 4
    assert hits(again, "okapi") == [(snap.key, "new")]


def test_apply_is_persisted_by_save_cache(tmp_path: Path) -> None:
    root = build(tmp_path)
    store = FileStore(root)
    ix = SearchIndex(store)
    ix.refresh()
    snap = store.find_workspace("/w/1")
    assert snap is not None
    ix.apply(store.commit(snap.key, [PutOp(record=rec("new", "okapi"))], snap.revision))
    before = rows(root)
    assert ix.save_cache() is True
    after = rows(root)
    assert {sid for sid in after if after[sid] != before[sid]} == {f"w:{snap.key}"}


def test_archived_and_deleted_scopes_leave_the_cache(tmp_path: Path) -> None:
    root = build(tmp_path)
    store = FileStore(root)
    ix = SearchIndex(store)
    ix.refresh()
    snap = store.find_workspace("/w/2")
    assert snap is not None
    store.archive(snap.key)
    ix.refresh()
    assert f"w:{snap.key}" not in rows(root) and f"a:{snap.key}" in rows(root)


def test_commit_into_a_scope_loaded_from_the_cache(tmp_path: Path) -> None:
    """A scope read from the cache (weights filled in on first use) re-indexes like a fresh one."""
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()
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
    loaded = SearchIndex(FileStore(root))
    loaded.refresh()
    assert loaded.save_cache() is True  # tables never looked up are written back as loaded
    again = SearchIndex(FileStore(root))
    assert again.refresh().from_cache == 4
    fresh = _fresh(root, cache=False)
    for q in ("zebra", "pnpm", "打包", "electron-builder"):
        assert again.search(q, limit=100) == fresh.search(q, limit=100)


def test_inconsistent_cache_with_a_valid_checksum_does_not_crash(tmp_path: Path) -> None:
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()

    def edit(obj: dict[str, Any]) -> None:
        ids, ends, refs, weights = obj["postings"]
        obj["postings"] = (ids, ends, b"\xff" * len(refs), weights)  # document numbers out of range
        ids, ends, refs = obj["field_reps"]
        obj["field_reps"] = (b"\xff" * len(ids), ends, refs)  # term numbers out of range
        order = obj["postings_order"]
        obj["postings_order"] = order[4:] + order[:4]  # keys no longer in sorted order

    rewrite_rows(root, lambda _sid, payload: forge(payload, edit))
    ix = SearchIndex(FileStore(root))
    ix.refresh()
    for q in ("zebra", "打包", "zeb", '"use pnpm"'):
        ix.search(q, limit=100)  # wrong answers are possible for a forged cache; exceptions are not


def test_a_forged_row_is_re_derived_from_the_text_when_its_scope_is_re_indexed(tmp_path: Path) -> None:
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()

    def edit(obj: dict[str, Any]) -> None:
        ids, ends, refs, weights = obj["postings"]
        obj["postings"] = (ids, ends, b"\xff" * len(refs), weights)

    rewrite_rows(root, lambda _sid, payload: forge(payload, edit))
    store = FileStore(root)
    ix = SearchIndex(store)
    assert ix.refresh().from_cache == 4
    for cwd in ("/w/0", "/w/1", "/w/2"):  # a commit into each: its unchanged records are re-derived
        snap = store.find_workspace(cwd)
        assert snap is not None
        ix.apply(store.commit(snap.key, [PutOp(record=rec("new", "okapi zebra"))], snap.revision))
    fresh = _fresh(root, cache=False)
    for q in ("zebra", "打包为什么慢", "zeb", "electron builder", "okapi"):
        got = [(h.scope_key, h.name) for h in ix.search(q, limit=100).hits if h.scope_key != "global"]
        want = [(h.scope_key, h.name) for h in fresh.search(q, limit=100).hits if h.scope_key != "global"]
        assert got == want


def test_cache_of_an_earlier_layout_is_replaced(tmp_path: Path) -> None:
    root = build(tmp_path)
    folder = root / ".manager" / "cache"
    folder.mkdir(parents=True)
    for old in ("search-index-v2.bin", "search-index-v3.bin", "search-seams-v3.bin"):
        (folder / old).write_bytes(b"DSHSRCH3" + b"\0" * 64)
    ix = SearchIndex(FileStore(root))
    assert ix.refresh().from_cache == 0
    assert db_path(root).is_file()
    assert (
        sorted(p.name for p in folder.iterdir() if p.name.startswith("search-index-v") and "sqlite" not in p.name) == []
    )
    assert not (folder / "search-seams-v3.bin").exists()


def test_warm_up_persists_seam_tables_and_reuses_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index, "AUTO_SAVE_DOCS", 1)
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()  # the cache, without seam tables
    assert all(seams is None for _t, _p, seams in rows(root).values())
    first = SearchIndex(FileStore(root))
    first.refresh()
    first.warm_up()  # built them all: adds them to the rows, payloads untouched
    written = rows(root)
    assert all(seams is not None for _t, _p, seams in written.values())
    second = SearchIndex(FileStore(root))
    assert second.refresh().from_cache == 4
    second.warm_up()
    assert rows(root) == written  # nothing new to save
    assert all(isinstance(seg.lazy["seams"], cache.LazyPostings) for seg in second._state.segments.values())
    fresh = _fresh(root, cache=False)
    for q in ('"use pnpm"', "zebra 1 2", "用了 electron", '"1 2 打包"', "electron builder"):
        assert second.search(q, limit=100) == fresh.search(q, limit=100)


@pytest.mark.parametrize("damage", [lambda b: b[:-3], lambda b: b"junk", "other token"])
def test_damaged_or_unpaired_seams_are_ignored(tmp_path: Path, damage: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index, "AUTO_SAVE_DOCS", 1)
    root = build(tmp_path)
    ix = SearchIndex(FileStore(root))
    ix.refresh()
    ix.warm_up()
    assert all(seams is not None for _t, _p, seams in rows(root).values())
    again = SearchIndex(FileStore(root))
    assert again.refresh().from_cache == 4
    with sqlite3.connect(db_path(root)) as con:
        if damage == "other token":  # another process rewrote the rows after this one loaded them
            con.execute("UPDATE scopes SET token = 'someone-else'")
            con.execute("UPDATE docs SET token = 'someone-else'")
        else:
            for sid, seams in con.execute("SELECT sid, seams FROM scopes").fetchall():
                con.execute("UPDATE scopes SET seams = ? WHERE sid = ?", (damage(seams), sid))
    again.warm_up()
    assert not any(isinstance(seg.lazy["seams"], cache.LazyPostings) for seg in again._state.segments.values())
    if damage == "other token":  # (nor their texts: those scopes are read again, see test_a_row_another_...)
        assert len(again.damaged_scopes()) == 4
        again.refresh()
    fresh = _fresh(root, cache=False)
    for q in ('"use pnpm"', "zebra 1 2", "用了 electron"):
        assert again.search(q, limit=100) == fresh.search(q, limit=100)


def test_two_processes_share_the_cache(tmp_path: Path) -> None:
    """The window and a CLI search each update their own rows; neither loses the other's."""
    root = build(tmp_path)
    a = SearchIndex(FileStore(root))
    a.refresh()
    b = SearchIndex(FileStore(root))
    b.refresh()
    store = FileStore(root)
    s0, s1 = store.find_workspace("/w/0"), store.find_workspace("/w/1")
    assert s0 is not None and s1 is not None
    store.commit(s0.key, [PutOp(record=rec("from-a", "okapi"))], s0.revision)
    age_recent(root)
    a.refresh()
    store.commit(s1.key, [PutOp(record=rec("from-b", "okapi"))], s1.revision)
    age_recent(root)
    b.refresh(keys=[s1.key])
    c = SearchIndex(FileStore(root))
    assert c.refresh().from_cache == 4
    assert sorted(hits(c, "okapi")) == sorted([(s0.key, "from-a"), (s1.key, "from-b")])


def test_queries_build_no_per_document_weight_tables(tmp_path: Path) -> None:
    """Memory: a query reads the weights of its own terms from the postings arrays; no document
    gets a weight dict (at 100k records those dicts were most of the RSS), fresh or loaded."""
    root = build(tmp_path)
    fresh = SearchIndex(FileStore(root))
    fresh.refresh()
    loaded = SearchIndex(FileStore(root))
    assert loaded.refresh().from_cache == 4
    for ix in (fresh, loaded):
        for q in ("zebra", "打包为什么慢", "zeb", '"use pnpm"', "electron builder", "包"):
            assert ix.search(q, limit=100).hits
        ix.warm_up()
        assert not any(d.weights for seg in ix._state.segments.values() for d in seg.docs)


def test_a_reopened_index_makes_document_objects_only_for_the_scopes_of_its_hits(tmp_path: Path) -> None:
    """Memory and start-up: a query over a reopened index ranks by document number from the rows'
    arrays and columns (phrases and CJK substrings included); only the scopes its hits come from
    turn their rows into Doc objects (at 100k records making them all was a third of the reopen)."""
    root = build(tmp_path)
    put(FileStore(root), "/w/odd", [rec("okapi", "okapi 打包为什么慢 use pnpm")])
    age_files(root)
    expected = {q: _fresh(root, cache=False).search(q, limit=100) for q in ("okapi", '"use pnpm" okapi', "为什么慢")}
    SearchIndex(FileStore(root)).refresh()
    ix = SearchIndex(FileStore(root))
    assert ix.refresh().from_cache == 5
    got = ix.search("okapi", limit=100)
    assert got == expected["okapi"] and {h.scope_key for h in got.hits} == {got.hits[0].scope_key}
    segments = ix._state.segments
    made = {sid for sid, seg in segments.items() if isinstance(seg.docs, cache.LazyDocs) and seg.docs.materialized}
    assert made == {f"w:{got.hits[0].scope_key}"}
    assert ix.search('"use pnpm" okapi', limit=100) == expected['"use pnpm" okapi']
    assert ix.search("为什么慢", limit=100) == expected["为什么慢"]


def test_a_cold_build_writes_its_rows_in_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index, "FLUSH_ROWS", 2)
    root = build(tmp_path)
    ix = SearchIndex(FileStore(root))
    ix.refresh()
    assert len(rows(root)) == 4
    assert not any("payload" in seg.lazy for seg in ix._state.segments.values())  # none held in memory
    again = SearchIndex(FileStore(root))
    assert again.refresh().from_cache == 4
    for q in ("zebra", "打包为什么慢", '"use pnpm"'):
        assert again.search(q, limit=100) == ix.search(q, limit=100)


def test_a_cache_of_the_previous_format_is_deleted_and_rebuilt(tmp_path: Path) -> None:
    # A v4 database (what the previous release wrote) is never read: its scopes are rebuilt from
    # the store, the old file and its WAL are deleted, and the new file is used from then on.
    root = build(tmp_path)
    folder = root / ".manager" / "cache"
    folder.mkdir(parents=True)
    with sqlite3.connect(folder / "search-index-v4.sqlite") as con:
        con.execute("CREATE TABLE scopes(sid TEXT PRIMARY KEY, token TEXT, payload BLOB, seams BLOB)")
        con.execute("INSERT INTO scopes VALUES ('global', 't', ?, NULL)", (b"DSHSRCH4" + b"\0" * 64,))
        con.execute("PRAGMA user_version=5")
    (folder / "search-index-v4.sqlite-wal").write_bytes(b"")
    ix = SearchIndex(FileStore(root))
    assert ix.refresh().from_cache == 0
    assert hits(ix, "zebra") == hits(_fresh(root, cache=False), "zebra")
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith("search-index-v4")) == []
    assert SearchIndex(FileStore(root)).refresh().from_cache == 4


def test_a_database_of_another_schema_version_is_replaced(tmp_path: Path) -> None:
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()
    with sqlite3.connect(db_path(root)) as con:
        con.execute("PRAGMA user_version=5")
    ix = SearchIndex(FileStore(root))
    assert ix.refresh().from_cache == 0
    assert hits(ix, "打包") == hits(_fresh(root, cache=False), "打包")
    assert SearchIndex(FileStore(root)).refresh().from_cache == 4


def _set_version(obj: dict[str, Any]) -> None:
    obj["version"] = obj["version"] - 1


def _bad_kind(obj: dict[str, Any]) -> None:
    ids, ends, refs, (_kind, values) = obj["postings"]
    obj["postings"] = (ids, ends, refs, ("q", values))


def _short_weights(obj: dict[str, Any]) -> None:
    ids, ends, refs, (kind, values) = obj["postings"]
    obj["postings"] = (ids, ends, refs, (kind, values[:-2]))


def _no_weights(obj: dict[str, Any]) -> None:
    obj["postings"] = obj["postings"][:3]


def _negative_length(obj: dict[str, Any]) -> None:
    obj["columns"][-1][0] = -500


def _short_order(obj: dict[str, Any]) -> None:
    obj["postings_order"] = obj["postings_order"][:-4]


def _order_out_of_range(obj: dict[str, Any]) -> None:
    obj["field_reps_order"] = b"\xff" * len(obj["field_reps_order"])


def _column_gone(obj: dict[str, Any]) -> None:
    del obj["columns"][4]


def _texts_in_the_columns(obj: dict[str, Any]) -> None:  # the layout before the texts had a column
    n = obj["n"]
    obj["columns"] = [*obj["columns"][:2], [""] * n, *obj["columns"][2:], [""] * n, [""] * n]


@pytest.mark.parametrize(
    "edit",
    [
        _set_version,
        _bad_kind,
        _short_weights,
        _no_weights,
        _negative_length,
        _short_order,
        _order_out_of_range,
        _column_gone,
        _texts_in_the_columns,
    ],
)
def test_rows_of_another_version_or_shape_are_rebuilt_never_trusted(tmp_path: Path, edit: Any) -> None:
    # Each edit is re-checksummed, so only the row's own version and shape checks can refuse it.
    root = build(tmp_path)
    expected = {q: _fresh(root, cache=False).search(q, limit=100) for q in ("zebra", "打包为什么慢", '"use pnpm"')}
    SearchIndex(FileStore(root)).refresh()
    rewrite_rows(root, lambda _sid, payload: forge(payload, edit))
    ix = SearchIndex(FileStore(root))
    ix.refresh()  # (opening reads the metas only: a forged payload is refused when first read)
    assert {q: ix.search(q, limit=100) for q in expected} == expected  # re-read from the files at once
    assert not ix.damaged_scopes()
    healed = rows(root)
    again = SearchIndex(FileStore(root))
    assert again.refresh().from_cache == 4
    assert {q: again.search(q, limit=100) for q in expected} == expected
    assert rows(root) == healed  # the rebuilt rows are intact


def _doc_row(values: Any) -> bytes:
    """A docs-table row holding ``values``, with a right digest (so only its shape can refuse it)."""
    return cache.seal_doc_row(marshal.dumps(values))


@pytest.mark.parametrize(
    "damage",
    [
        "not a row",
        "wrong digest",
        "short",  # a row with a column missing
        "not texts",
        "of another scope",  # a right row of another scope's document
        "one gone",
        "all gone",
    ],
)
def test_document_rows_that_do_not_decode_are_never_trusted(tmp_path: Path, damage: str) -> None:
    """A scope's document rows are read when a query first needs a text, not when the index opens;
    rows that fail their digest or are not this scope's are never shown (no exception in a query,
    no foreign or empty text in a hit): that scope is read again from its files."""
    root = build(tmp_path)
    queries = ("zebra", '"use pnpm"', "打包用了", "electron builder")
    expected = {q: _fresh(root, cache=False).search(q, limit=100) for q in queries}
    SearchIndex(FileStore(root)).refresh()
    with sqlite3.connect(db_path(root)) as con:
        docs = con.execute("SELECT sid, i, data FROM docs").fetchall()
        other = {sid: data for sid, i, data in docs if i == 0}
        for sid, i, data in docs:
            if damage == "not a row":
                new: bytes | None = b"\x00not a row"
            elif damage == "wrong digest":
                new = data[:20] + bytes([data[20] ^ 0xFF]) + data[21:]
            elif damage == "short":
                new = _doc_row(marshal.loads(data[cache.DOC_DIGEST :])[:-1])
            elif damage == "not texts":
                new = _doc_row([*marshal.loads(data[cache.DOC_DIGEST :])[:-2], 7, ""])
            elif damage == "of another scope":
                new = next(d for s, d in other.items() if s != sid) if i == 0 else data
            elif damage == "one gone":
                new = None if i == 0 else data
            else:
                new = None
            if new is None:
                con.execute("DELETE FROM docs WHERE sid = ? AND i = ?", (sid, i))
            else:
                con.execute("UPDATE docs SET data = ? WHERE sid = ? AND i = ?", (new, sid, i))
    ix = SearchIndex(FileStore(root))
    assert ix.refresh().from_cache == 4  # (the light columns and the tables are intact)
    # The first query that reads a scope's texts finds them unusable, re-reads that scope from its
    # files and ranks again: no hit ever shows foreign or empty text.
    for q in queries:
        assert ix.search(q, limit=100) == expected[q]
    assert not ix.damaged_scopes()
    healed = rows(root)
    assert {q: _fresh(root, cache=True).search(q, limit=100) for q in queries} == expected  # rows rewritten
    assert rows(root) == healed  # ... with texts that decode: the next process needed no re-read


@pytest.mark.parametrize("preload", [False, True])
def test_a_row_another_process_rewrote_is_read_again_never_mixed(tmp_path: Path, preload: bool) -> None:
    """One process opens the index, another then rewrites a scope's row (a commit there); the
    first never reads the new row's tables or texts for what it opened: it re-reads that scope
    from its files and ranks again, so the hits are those of a fresh build."""
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()
    first = SearchIndex(FileStore(root))
    assert first.refresh().from_cache == 4
    if preload:
        assert first.search("nothing-matches-this", limit=5).total_matches == 0  # (reads every row's tables)
    store = FileStore(root)
    snap = store.find_workspace("/w/1")
    assert snap is not None
    store.commit(snap.key, [PutOp(record=rec("r-9", "zebra 1 9 quagga"))], snap.revision)
    other = SearchIndex(FileStore(root))
    other.refresh()  # (rewrites that scope's row)
    # The first reads that row now (its tables, or with ``preload`` its texts for the tables it
    # read before): it is not the row it opened, so it is never used; the scope is read again.
    got = first.search("zebra 1", limit=100)
    assert got == _fresh(root, cache=False).search("zebra 1", limit=100)
    assert any("quagga" in h.snippet for h in got.hits) and not first.damaged_scopes()


def test_a_reopened_index_ranks_and_quotes_exactly_as_a_fresh_build(tmp_path: Path) -> None:
    # The row stores no normalized text for all-ASCII documents (recomputed on first use), keeps it
    # for the others, and keeps each term table's sorted key order (lookups bisect first). Scores,
    # order and phrase matches must be the very same as a build from the files.
    root = tmp_path / "memory"
    store = FileStore(root)
    store.replace_global("## Ｔｉｐｓ\nUse ＰＮＰＭ 打包; Straße ﬁle\n", None)
    bodies = [
        "pnpm " * 300 + "lockfile",
        "Electron-Builder ＦＵＬＬ-ＷＩＤＴＨ ﬁle STRASSE straße " * 3,
        "打包用了 electron-builder，打包为什么慢？打包 " * 7,
        "use pnpm to build; the lockfile is committed",
        "数据库迁移 migration 回滚 rollback",
    ]
    for i in range(3):
        put(
            store,
            f"/w/{i}",
            [rec(f"r-{i}-{j}", f"{b} zebra{i}", description=f"Ｎｏｔｅ {j}") for j, b in enumerate(bodies)],
        )
    age_files(root)
    queries = (
        "pnpm",
        "pnp",
        "lockfile committed",
        '"use pnpm"',
        '"full-width file"',
        "strasse",
        "straße",
        "electron builder",
        "打包为什么慢",
        "包",
        '"打包用了"',
        "note",
        "zebra1 回滚",
    )
    fresh = _fresh(root, cache=False)
    expected = {q: fresh.search(q, limit=100) for q in queries}
    assert all(expected[q].total_matches for q in queries)
    SearchIndex(FileStore(root)).refresh()  # writes the rows
    reopened = SearchIndex(FileStore(root))
    assert reopened.refresh().from_cache == 4
    assert {q: reopened.search(q, limit=100) for q in queries} == expected
    # And after a commit re-indexes a scope loaded from those rows (weights filled from the row).
    snap = store.find_workspace("/w/1")
    assert snap is not None
    new = store.commit(snap.key, [PutOp(record=rec("okapi", "pnpm okapi 打包"))], snap.revision)
    reopened.apply(new)
    assert reopened.save_cache()
    fresh = _fresh(root, cache=False)
    again = SearchIndex(FileStore(root))
    again.refresh()
    for q in (*queries, "okapi"):
        assert reopened.search(q, limit=100) == fresh.search(q, limit=100) == again.search(q, limit=100)


def test_a_key_order_that_is_not_sorted_gives_no_exception(tmp_path: Path) -> None:
    root = build(tmp_path)
    SearchIndex(FileStore(root)).refresh()

    def edit(obj: dict[str, Any]) -> None:
        order = obj["postings_order"]
        obj["postings_order"] = order[4:] + order[:4]  # every position once, no longer sorted by key

    rewrite_rows(root, lambda _sid, payload: forge(payload, edit))
    ix = SearchIndex(FileStore(root))
    assert ix.refresh().from_cache == 4  # in range: the row passes its checks
    for q in ("zebra", "打包", "zeb", '"use pnpm"', "electron builder", "包"):
        ix.search(q, limit=100)  # wrong answers are possible for a forged cache; exceptions are not
