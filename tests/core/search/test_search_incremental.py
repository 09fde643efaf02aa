"""The index follows the store: commits and external edits re-index only what changed."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from search_support import age_files, make_store, put, rec, set_mtime

from core.models import DeleteOp, PutOp
from core.search import GLOBAL_SCOPE, SearchIndex
from core.store.fs import FileStore
from core.store.memory import InMemoryStore

CWD = "/home/me/proj"


class CountingStore:
    """Delegates to a real store and counts the reads the index makes."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.workspace_reads: list[str] = []
        self.global_reads = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @property
    def root(self) -> Path | None:
        root: Path | None = self.inner.root
        return root

    def read_workspace(self, key: str, *, archived: bool = False) -> Any:
        self.workspace_reads.append(key)
        return self.inner.read_workspace(key, archived=archived)

    @property
    def inspect(self) -> Any:
        return self  # (only scan and stamps are used: the other inspect members are not asked for here)

    @property
    def stamps(self) -> Any:
        return self.inner.inspect.stamps

    def scan(self, key: str, *, archived: bool = False) -> Any:
        self.workspace_reads.append(key)
        return self.inner.inspect.scan(key, archived=archived)

    def read_global(self) -> Any:
        self.global_reads += 1
        return self.inner.read_global()


def names(index: SearchIndex, query: str) -> list[str]:
    return sorted(h.name for h in index.search(query, limit=100).hits)


def test_unchanged_files_are_not_read_again(tmp_path: Path) -> None:
    inner = FileStore(tmp_path / "memory")
    inner.replace_global("## Tips\nuse pnpm\n", None)
    for i in range(5):
        put(inner, f"/w/{i}", [rec(f"r-{j}", f"text {i} {j}") for j in range(3)])
    age_files(tmp_path / "memory")
    store = CountingStore(inner)
    index = SearchIndex(store, cache_dir=False)  # type: ignore[arg-type]
    first = index.refresh()
    assert first.scopes_reread == 6 and first.docs_reindexed == 15 + 1
    store.workspace_reads.clear()
    store.global_reads = 0
    again = index.refresh()
    assert (again.scopes_reread, again.docs_reindexed, again.docs_removed) == (0, 0, 0)
    assert store.workspace_reads == [] and store.global_reads == 0
    assert again.docs_total == first.docs_total


def test_commit_then_refresh_reindexes_only_the_changed_record(tmp_path: Path) -> None:
    inner = FileStore(tmp_path / "memory")
    snaps = [put(inner, f"/w/{i}", [rec(f"r-{j}", f"alpha {j}") for j in range(4)]) for i in range(3)]
    age_files(tmp_path / "memory")
    store = CountingStore(inner)
    index = SearchIndex(store, cache_dir=False)  # type: ignore[arg-type]
    index.refresh()
    store.workspace_reads.clear()
    target = snaps[1]
    inner.commit(target.key, [PutOp(record=rec("r-2", "omega changed"))], target.revision)
    stats = index.refresh()
    assert store.workspace_reads == [target.key]
    assert (stats.scopes_reread, stats.docs_reindexed, stats.docs_removed) == (1, 1, 1)
    assert [h.name for h in index.search("omega").hits] == ["r-2"]
    assert {h.scope_key for h in index.search("alpha", limit=100).hits} == {s.key for s in snaps}
    assert len(index.search("alpha", limit=100).hits) == 11


def test_apply_indexes_a_commit_without_reading_the_store(tmp_path: Path) -> None:
    inner = InMemoryStore()
    snap = put(inner, CWD, [rec("a", "first words"), rec("b", "second words")])
    store = CountingStore(inner)
    index = SearchIndex(store, cache_dir=False)  # type: ignore[arg-type]
    index.refresh()
    store.workspace_reads.clear()
    new = inner.commit(snap.key, [PutOp(record=rec("c", "third words")), DeleteOp(name="a")], snap.revision)
    stats = index.apply(new)
    assert store.workspace_reads == []
    assert (stats.docs_reindexed, stats.docs_removed) == (1, 1)
    assert names(index, "words") == ["b", "c"]
    g = inner.replace_global("## Prefs\nzebra\n", None)
    index.apply(g)
    assert [h.scope_key for h in index.search("zebra").hits] == [GLOBAL_SCOPE]


def test_external_edit_of_a_record_file(tmp_path: Path) -> None:
    inner = FileStore(tmp_path / "memory")
    snap = put(inner, CWD, [rec("a", "original words"), rec("b", "other words")])
    put(inner, "/w/untouched", [rec("c", "more words")])
    age_files(tmp_path / "memory")
    store = CountingStore(inner)
    index = SearchIndex(store, cache_dir=False)  # type: ignore[arg-type]
    index.refresh()
    store.workspace_reads.clear()
    path = tmp_path / "memory" / "workspaces" / snap.key / "a.md"
    # Saved the way editors and the store save (new file renamed over the old): a plain refresh
    # sees the folder change.
    tmp = path.with_name(".a.md.tmp")
    tmp.write_text(path.read_text().replace("original", "edited"))
    tmp.replace(path)
    stats = index.refresh()
    assert store.workspace_reads == [snap.key]
    assert (stats.scopes_reread, stats.docs_reindexed) == (1, 1)
    assert names(index, "edited") == ["a"] and names(index, "original") == []


def test_in_place_edit_is_found_by_a_keyed_or_deep_refresh(tmp_path: Path) -> None:
    inner = FileStore(tmp_path / "memory")
    snap = put(inner, CWD, [rec("a", "original words"), rec("b", "other words")])
    put(inner, "/w/untouched", [rec("c", "more words")])
    age_files(tmp_path / "memory")
    store = CountingStore(inner)
    index = SearchIndex(store, cache_dir=False)  # type: ignore[arg-type]
    index.refresh()
    store.workspace_reads.clear()
    path = tmp_path / "memory" / "workspaces" / snap.key / "a.md"
    path.write_text(path.read_text().replace("original", "edited"))  # in place: folder mtime kept
    set_mtime(path, time.time() - 7200)
    assert index.refresh().scopes_reread == 0  # trusted by the folder's stamp (no file stats)
    stats = index.refresh(keys=[snap.key])  # what the window's watcher asks for
    assert store.workspace_reads == [snap.key]
    assert (stats.scopes_reread, stats.docs_reindexed) == (1, 1)
    assert names(index, "edited") == ["a"] and names(index, "original") == []
    path.write_text(path.read_text().replace("edited", "redone"))
    set_mtime(path, time.time() - 3600)
    assert index.refresh(deep=True).docs_reindexed == 1
    assert names(index, "redone") == ["a"]


def test_in_place_edit_a_watcher_noted_is_found_by_a_plain_refresh(tmp_path: Path) -> None:
    """The window's watcher notes the folders it saw change; a plain refresh then looks at their
    files only, and an unnoted in-place edit elsewhere waits for a keyed or deep refresh."""
    inner = FileStore(tmp_path / "memory")
    snap = put(inner, CWD, [rec("a", "original words"), rec("b", "other words")])
    other = put(inner, "/w/untouched", [rec("c", "more words")])
    age_files(tmp_path / "memory")
    store = CountingStore(inner)
    index = SearchIndex(store, cache_dir=False)  # type: ignore[arg-type]
    index.refresh()
    assert not index.watched
    store.workspace_reads.clear()
    for key, name, old, new in [(snap.key, "a", "original", "edited"), (other.key, "c", "more", "unseen")]:
        path = tmp_path / "memory" / "workspaces" / key / f"{name}.md"
        path.write_text(path.read_text().replace(old, new))  # in place: folder mtime kept
        set_mtime(path, time.time() - 7200)
    index.note_changed({snap.key})
    assert index.watched
    stats = index.refresh()
    assert store.workspace_reads == [snap.key] and stats.docs_reindexed == 1
    assert names(index, "edited") == ["a"] and names(index, "original") == []
    assert names(index, "unseen") == []  # not noted: its folder's stamp is trusted
    index.refresh()
    assert store.workspace_reads == [snap.key]  # the note was used up
    index.note_changed({other.key})
    index.refresh(keys=[snap.key])  # a keyed refresh of other keys leaves the note for later
    assert names(index, "unseen") == []
    index.refresh()
    assert names(index, "unseen") == ["c"]


def test_a_note_survives_a_failed_refresh(tmp_path: Path) -> None:
    inner = FileStore(tmp_path / "memory")
    snap = put(inner, CWD, [rec("a", "original words")])
    age_files(tmp_path / "memory")
    store = CountingStore(inner)
    index = SearchIndex(store, cache_dir=False)  # type: ignore[arg-type]
    index.refresh()
    path = tmp_path / "memory" / "workspaces" / snap.key / "a.md"
    path.write_text(path.read_text().replace("original", "edited"))
    set_mtime(path, time.time() - 7200)
    index.note_changed({snap.key})
    calls = 0

    def failing_read(key: str, *, archived: bool = False) -> Any:
        nonlocal calls
        calls += 1
        raise OSError("disk went away")

    store.scan = failing_read  # type: ignore[method-assign]
    with pytest.raises(OSError):
        index.refresh()
    assert calls == 1
    del store.scan
    index.refresh()
    assert names(index, "edited") == ["a"]


def test_external_new_and_deleted_files_and_scopes(tmp_path: Path) -> None:
    inner = FileStore(tmp_path / "memory")
    snap = put(inner, CWD, [rec("a", "zebra one"), rec("b", "zebra two")])
    index = SearchIndex(inner, cache_dir=False)
    index.refresh()
    scope = tmp_path / "memory" / "workspaces" / snap.key
    (scope / "a.md").unlink()
    (scope / "c.md").write_bytes((scope / "b.md").read_bytes().replace(b"name: b", b"name: c"))
    index.refresh()
    assert names(index, "zebra") == ["b", "c"]
    other = put(inner, "/w/new", [rec("d", "zebra three")])
    index.refresh()
    assert names(index, "zebra") == ["b", "c", "d"]
    import shutil

    shutil.rmtree(tmp_path / "memory" / "workspaces" / other.key)
    stats = index.refresh()
    assert names(index, "zebra") == ["b", "c"]
    assert stats.docs_removed == 1


def test_external_edit_of_global(tmp_path: Path) -> None:
    inner = FileStore(tmp_path / "memory")
    inner.replace_global("## A\nalpha\n", None)
    index = SearchIndex(inner, cache_dir=False)
    index.refresh()
    (tmp_path / "memory" / "GLOBAL.md").write_text("## A\nalpha\n\n## B\nbravo\n")
    index.refresh()
    assert [h.name for h in index.search("bravo").hits] == ["B"]


def test_racy_files_are_re_read_but_not_re_indexed(tmp_path: Path) -> None:
    inner = FileStore(tmp_path / "memory")
    put(inner, CWD, [rec("a", "fresh words")])  # mtimes are "now": fingerprints untrusted
    store = CountingStore(inner)
    index = SearchIndex(store, cache_dir=False)  # type: ignore[arg-type]
    index.refresh()
    stats = index.refresh()
    assert stats.scopes_reread == 1 and stats.docs_reindexed == 0


def test_refresh_of_selected_keys_leaves_others_alone(tmp_path: Path) -> None:
    store = make_store("memory", tmp_path)
    a = put(store, "/w/a", [rec("a", "zebra")])
    b = put(store, "/w/b", [rec("b", "zebra")])
    index = SearchIndex(store, cache_dir=False)
    index.refresh(keys=[a.key])
    assert names(index, "zebra") == ["a"]
    index.refresh(keys=[b.key, GLOBAL_SCOPE])
    assert names(index, "zebra") == ["a", "b"]


def test_searching_while_another_thread_refreshes(tmp_path: Path) -> None:
    store = InMemoryStore()
    snap = put(store, CWD, [rec(f"r-{i}", "steady words") for i in range(20)])
    index = SearchIndex(store, cache_dir=False)
    index.refresh()
    errors: list[BaseException] = []
    done = threading.Event()

    def writer() -> None:
        try:
            current = snap
            for i in range(30):
                current = store.commit(current.key, [PutOp(record=rec(f"n-{i}", "steady words"))], current.revision)
                index.refresh()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    seen = 0
    while not done.is_set() or seen == 0:
        res = index.search("steady", limit=100)
        counts = len(res.hits)
        assert counts == res.total_matches and counts >= 20
        seen += 1
    thread.join()
    assert errors == []
    assert len(index.search("steady", limit=100).hits) == 50


def test_refresh_reports_progress(tmp_path: Path) -> None:
    inner = FileStore(tmp_path / "memory")
    for i in range(4):
        put(inner, f"/w/{i}", [rec("a", f"text {i}")])
    index = SearchIndex(inner, cache_dir=False)
    seen: list[tuple[int, int]] = []
    index.refresh(progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 5) and seen[-1] == (5, 5)  # four workspaces and Global
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def _approx(ranked: Any) -> Any:
    """Hits without their scores: tantivy's BM25 statistics count a replaced document until its
    segment is merged, so an incrementally updated index scores a hair off a fresh build (the
    rank groups, and so the order here, are the same)."""
    return {q: [(*h[:2], *h[3:]) for h in hits] for q, hits in ranked.items()}


def test_a_commit_into_a_reopened_index_ranks_as_a_fresh_build(tmp_path: Path) -> None:
    """A commit into a scope of the persisted index (kept, edited, renamed and deleted records, new
    words and words gone) answers as a build from the files does, in this process and after the
    index is opened again."""
    root = tmp_path / "memory"
    store = FileStore(root)
    first = put(
        store,
        CWD,
        [  # (term counts and lengths differ, so every posting has its own BM25 weight)
            rec(f"r-{i}", "zebra " * (i + 1) + f"{i} 打包 electron-builder notar" + " filler" * (5 * i), f"okapi {i}")
            for i in range(6)
        ],
    )
    put(store, "/home/me/other", [rec("o", "zebra elsewhere")])
    age_files(root)
    SearchIndex(store).refresh()
    index = SearchIndex(FileStore(root))
    assert index.refresh().from_cache == 3

    ops = [
        PutOp(record=rec("r-1", "quagga words only now", description="okapi again")),  # edited
        DeleteOp(name="r-2"),
        PutOp(record=rec("fresh", "zebra quagga 公证 new words", description="brand new")),
    ]
    snap = store.commit(first.key, ops, first.revision)
    index.apply(snap)
    queries = ("zebra", "quagga", "okapi", "electron builder", "打包", "公证", "nota", '"zebra 3"', "r-1", "brand")

    def fresh() -> dict[str, Any]:
        ix = SearchIndex(FileStore(root), cache_dir=False)
        ix.refresh()
        return {q: ix.search(q, limit=100) for q in queries}

    def strip(results: Any) -> Any:
        return [(h.scope_key, h.name, h.score, h.snippet, h.highlights) for h in results.hits]

    expected = _approx({q: strip(r) for q, r in fresh().items()})
    assert _approx({q: strip(index.search(q, limit=100)) for q in queries}) == expected
    again = SearchIndex(FileStore(root))
    assert again.refresh().docs_reindexed == 0  # (the committed scope is looked at: apply() took no stat)
    assert _approx({q: strip(again.search(q, limit=100)) for q in queries}) == expected


def test_queries_after_commits_rank_as_a_fresh_build(tmp_path: Path) -> None:
    """After commits that grow, shrink or replace scopes (one or two between queries), and after
    a refresh, every query returns what a build from the files returns."""
    root = tmp_path / "memory"
    store = FileStore(root)
    snaps = [
        put(
            store,
            f"/w/{w}",
            [
                rec(f"r{w}-{i}", "zebra " * (i + 1) + f"quagga okapi {w} 打包 build" + " x" * i, f"okapi {i}")
                for i in range(4)
            ],
        )
        for w in range(5)
    ]
    age_files(root)
    index = SearchIndex(FileStore(root))
    index.refresh()
    queries = ("zebra", "okapi quagga", '"quagga okapi"', "打包", "bui", "zebra build", "r2-1", "new words")

    def run(ix: SearchIndex) -> dict[str, Any]:
        return {q: [(h.scope_key, h.name, h.score) for h in ix.search(q, limit=100).hits] for q in queries}

    def fresh() -> dict[str, Any]:
        ix = SearchIndex(FileStore(root), cache_dir=False)
        ix.refresh()
        return run(ix)

    run(index)  # (fills the tables a commit's successor state adopts)
    steps = [
        [(2, [PutOp(record=rec("n1", "new words zebra okapi"))])],  # a middle one grows
        [(0, [DeleteOp(name="r0-1"), DeleteOp(name="r0-2")])],  # the first shrinks
        [(4, [PutOp(record=rec("r4-0", "quagga okapi replaced"))]), (1, [DeleteOp(name="r1-3")])],  # no query between
        [(3, [PutOp(record=rec(f"m{i}", f"zebra {i} new words build")) for i in range(3)])],
    ]
    for step in steps:
        for w, ops in step:
            snaps[w] = store.commit(snaps[w].key, ops, snaps[w].revision)
            index.apply(snaps[w])
        assert _approx(run(index)) == _approx(fresh())
    # A refresh that re-reads a changed scope.
    (root / "workspaces" / snaps[2].key / "n1.md").unlink()
    index.refresh()
    assert _approx(run(index)) == _approx(fresh())
