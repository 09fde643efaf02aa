"""The persisted index: reused across processes, private, rebuilt when damaged or foreign, shared by
processes that can't all write (tantivy's one writer), and never a reason to touch memory."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import tantivy
from search_support import age_files, put, rec

from core.models import PutOp
from core.search import SearchIndex
from core.search.persist import INDEX_DIR, SCOPES_FILE
from core.store.fs import FileStore

REPO = Path(__file__).resolve().parents[3]


def _root(tmp_path: Path, workspaces: int = 3, records: int = 4) -> Path:
    root = tmp_path / "memory"
    store = FileStore(root)
    for w in range(workspaces):
        put(store, f"/w/{w}", [rec(f"r{w}-{i}", f"needle {w} {i} electron-builder 打包") for i in range(records)])
    age_files(root)
    return root


def _index_dir(root: Path) -> Path:
    return root / ".manager" / "cache" / INDEX_DIR


def _memory_digest(root: Path) -> dict[str, str]:
    """Every file of the root outside the app's internals, by content."""
    out: dict[str, str] = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".manager"]
        for f in files:
            p = Path(dirpath) / f
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def test_the_index_is_persisted_private_and_reused(tmp_path: Path) -> None:
    root = _root(tmp_path)
    first = SearchIndex(FileStore(root)).refresh()
    assert first.docs_reindexed == 12 and first.from_cache == 0
    folder = _index_dir(root)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    files = [p for p in folder.iterdir() if p.is_file()]
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)
    again = SearchIndex(FileStore(root))
    stats = again.refresh()
    assert (stats.scopes_reread, stats.docs_reindexed, stats.from_cache) == (0, 0, 4)  # three workspaces, Global
    assert not first.started_over and not stats.started_over  # (a new folder is no start over)
    assert again.search("needle").total_matches == 12


def test_one_commit_indexes_its_record_only(tmp_path: Path) -> None:
    root = _root(tmp_path)
    store = FileStore(root)
    index = SearchIndex(store)
    index.refresh()
    snap = store.find_workspace("/w/1")
    assert snap is not None
    after = store.commit(snap.key, [PutOp(record=rec("r1-0", "okapi now"))], snap.revision)
    stats = index.apply(after)
    assert (stats.docs_reindexed, stats.docs_removed) == (1, 1)
    assert [h.name for h in index.search("okapi").hits] == ["r1-0"]
    assert index.search("needle").total_matches == 11
    assert SearchIndex(FileStore(root)).search("okapi").total_matches == 0  # (nothing before a refresh)


@pytest.mark.parametrize("damage", ["garbage meta", "truncated files", "a file instead", "a symlink"])
def test_a_damaged_or_foreign_index_folder_is_rebuilt_from_the_store(tmp_path: Path, damage: str) -> None:
    root = _root(tmp_path)
    SearchIndex(FileStore(root)).refresh()
    folder = _index_dir(root)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("not ours")
    if damage == "garbage meta":
        (folder / "meta.json").write_bytes(b"\x00not json at all")
    elif damage == "truncated files":
        for p in folder.iterdir():
            if p.is_file() and p.name != SCOPES_FILE:
                p.write_bytes(p.read_bytes()[:7])
    else:
        for p in folder.iterdir():
            p.unlink()
        folder.rmdir()
        if damage == "a file instead":
            folder.write_bytes(b"hello")
        else:
            folder.symlink_to(elsewhere, target_is_directory=True)
    index = SearchIndex(FileStore(root))
    assert index.refresh().started_over  # (and says so)
    assert index.search("needle").total_matches == 12
    assert index.search("打包 electron-builder").total_matches == 12
    assert folder.is_dir() and not folder.is_symlink()
    assert (elsewhere / "keep.txt").read_text() == "not ours"  # (a symlink is never followed)


def test_a_scopes_file_of_another_version_or_shape_is_not_trusted(tmp_path: Path) -> None:
    root = _root(tmp_path)
    SearchIndex(FileStore(root)).refresh()
    scopes = _index_dir(root) / SCOPES_FILE
    for bad in ({"version": -1, "scopes": {}}, {"version": 1, "scopes": {"w:x": ["odd"]}}, [1, 2]):
        scopes.write_text(json.dumps(bad))
        index = SearchIndex(FileStore(root))
        stats = index.refresh()
        assert stats.from_cache == 0 and stats.docs_reindexed == 0  # (looked at again; the index agreed)
        assert index.search("needle").total_matches == 12


def test_an_earlier_version_is_removed(tmp_path: Path) -> None:
    root = _root(tmp_path, 1, 1)
    cache = root / ".manager" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "search-index-v5.sqlite").write_bytes(b"old engine")
    (cache / "search-v0").mkdir()
    SearchIndex(FileStore(root)).refresh()
    assert sorted(p.name for p in cache.iterdir() if p.name.startswith("search-")) == [INDEX_DIR]


def test_a_process_that_cannot_take_the_writer_answers_from_the_last_commit(tmp_path: Path) -> None:
    root = _root(tmp_path)
    store = FileStore(root)
    SearchIndex(store).refresh()
    snap = store.find_workspace("/w/0")
    assert snap is not None
    store.commit(snap.key, [PutOp(record=rec("late", "okapi arrives"))], snap.revision)
    holder = tantivy.Index.open(str(_index_dir(root))).writer(heap_size=15_000_000, num_threads=1)
    index = SearchIndex(FileStore(root))
    started = time.monotonic()
    stats = index.refresh()
    assert time.monotonic() - started < 5.0  # (never waits for the writer)
    assert stats.read_only and index.read_only
    assert index.search("needle").total_matches == 12  # the last committed state
    assert index.search("okapi").total_matches == 0
    holder.rollback()
    del holder
    stats = index.refresh()
    assert not stats.read_only
    assert [h.name for h in index.search("okapi").hits] == ["late"]


_WORKER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from core.search import SearchIndex
    from core.store.fs import FileStore

    root, mode, seconds = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    index = SearchIndex(FileStore(root))
    if mode == "build":
        def progress(done, total):
            if done == total // 2:
                print("halfway", flush=True)
                time.sleep(30)  # (the parent kills us here: writer held, documents added)
        index.refresh(progress=progress)
        print("built", flush=True)
        sys.exit(0)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        stats = index.refresh()
        res = index.search("needle")
        print(json.dumps([res.total_matches, stats.read_only]), flush=True)
        time.sleep(0.05)
    """
)


def _worker(root: Path, mode: str, seconds: float = 0.0) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _WORKER, str(root), mode, str(seconds)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_processes_share_the_index_and_one_killed_mid_build_harms_nothing(tmp_path: Path) -> None:
    """One process builds (and is SIGKILLed holding the writer, documents added, nothing
    committed yet) while another refreshes and searches in a loop: the other never fails or
    blocks, answers from what was committed, then takes over and builds; the index recovers
    and the memory files are byte for byte what they were."""
    root = _root(tmp_path, workspaces=40, records=10)
    before = _memory_digest(root)
    builder = _worker(root, "build")
    assert builder.stdout is not None
    assert builder.stdout.readline().strip() == "halfway"
    searcher = _worker(root, "search", seconds=4.0)
    assert searcher.stdout is not None
    first = json.loads(searcher.stdout.readline())
    assert first == [0, True]  # the builder holds the writer: nothing committed yet, and it says so
    os.kill(builder.pid, signal.SIGKILL)
    builder.communicate(timeout=30)
    out, err = searcher.communicate(timeout=120)
    assert searcher.returncode == 0, err
    answers = [first] + [json.loads(line) for line in out.splitlines()]
    assert answers[-1] == [400, False]  # took the writer once the killed one was gone, and built
    assert all(count in (0, 400) for count, _ in answers)  # never a half-committed state
    # The searcher's build is on disk (not only in its memory): tells a lost build apart from a
    # fresh process that could not trust a good one (stale rows alone re-read scopes, 0 documents).
    on_disk = tantivy.Index.open(str(_index_dir(root)))
    assert on_disk.searcher().num_docs == 400 and (_index_dir(root) / SCOPES_FILE).is_file()
    del on_disk
    index = SearchIndex(FileStore(root))
    stats = index.refresh()
    assert (stats.started_over, stats.scopes_reread, stats.docs_reindexed) == (False, 0, 0)
    assert index.search("needle").total_matches == 400
    assert _memory_digest(root) == before
