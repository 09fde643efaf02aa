"""The term-major base (core/search/termbase.py): a reopened index that answers through it ranks,
scores and quotes exactly as a build from the files, before and after commits, and never trusts a
base that is damaged or was replaced by another process."""

from __future__ import annotations

import json
import marshal
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from search_support import age_files, age_recent, put, rec

from core.models import DeleteOp, PutOp
from core.search import SearchIndex, SearchResults, base_builder, cache, index
from core.search.cache import DB_FILE
from core.store.fs import FileStore

QUERIES = (
    "pnpm",
    "pnp",  # a prefix: expanded through the base's vocabulary
    "lockfile committed",
    '"use pnpm"',
    '"full-width file"',
    "strasse",
    "electron builder",
    "electron-builder",
    "打包为什么慢",
    "包",  # one CJK character: expanded to the bigrams holding it
    '"打包用了"',
    "note",
    "deploy-notes",  # an exact record name
    "zebra3 回滚",
    "rollback migration",
    "nothing-matches-this",
)
BODIES = (
    "pnpm " * 40 + "lockfile",
    "Electron-Builder ＦＵＬＬ-ＷＩＤＴＨ ﬁle STRASSE straße",
    "打包用了 electron-builder，打包为什么慢？打包",
    "use pnpm to build; the lockfile is committed",
    "数据库迁移 migration 回滚 rollback",
    "pnpm-workspace pnpmfile pnpx the lockfile",
)


@pytest.fixture(autouse=True)
def small_base(monkeypatch: pytest.MonkeyPatch) -> None:
    """The base is written for roots of 5,000 records and read by views of 16 segments or more;
    these roots are smaller, with as many workspaces."""
    monkeypatch.setattr(index, "BASE_MIN_DOCS", 1)
    monkeypatch.setattr(index, "BASE_MIN_SEGMENTS", 4)
    monkeypatch.setattr(index, "FEW_SCANS", 0)  # (phrase candidates from the seam keys even for few documents)


def build(tmp_path: Path, workspaces: int = 8) -> Path:
    root = tmp_path / "memory"
    store = FileStore(root)
    store.replace_global("## Ｔｉｐｓ\nUse ＰＮＰＭ 打包; Straße ﬁle\n", None)
    for i in range(workspaces):
        records = [
            # (Repetitions vary from scope to scope, so the BM25 weights, and the threshold walk's order, do.)
            rec(
                f"r-{i}-{j}",
                f"{b} zebra{i}{' pnpm' * (i * j % 5)}{' electron' * ((i + j) % 3)}",
                description=f"Ｎｏｔｅ {j}",
            )
            for j, b in enumerate(BODIES)
            if (i + j) % 4  # (scopes differ in which words they hold)
        ]
        records.append(rec("deploy-notes", f"how we deploy {i}", type_="reference"))
        put(store, f"/w/{i}", records)
    age_files(root)
    return root


def write_base(root: Path) -> None:
    """The cold build writes the rows; the builder (a process of its own in use) writes the base."""
    SearchIndex(FileStore(root)).refresh()
    assert base_builder.build(root)


def answers(ix: SearchIndex) -> dict[tuple[str, int], SearchResults]:
    # (A limit of 3 cuts through big rank groups: the threshold walk over the weight-ordered postings.)
    return {(q, limit): ix.search(q, limit=limit) for q in QUERIES for limit in (100, 3)}


def fresh(root: Path) -> dict[tuple[str, int], SearchResults]:
    ix = SearchIndex(FileStore(root), cache_dir=False)
    ix.refresh()
    return answers(ix)


def base_rows(root: Path) -> int:
    with sqlite3.connect(root / ".manager" / "cache" / DB_FILE) as con:
        return int(con.execute("SELECT count(*) FROM base_terms").fetchone()[0])


def base_tokens(root: Path) -> set[str]:
    with sqlite3.connect(root / ".manager" / "cache" / DB_FILE) as con:
        return {t for (t,) in con.execute("SELECT DISTINCT token FROM base_terms")}


def answered_by_base(ix: SearchIndex) -> bool:
    return any(view.base is not None for view in ix._state.views.values())


def test_a_reopened_index_answers_through_the_base_exactly_as_a_fresh_build(tmp_path: Path) -> None:
    root = build(tmp_path)
    expected = fresh(root)
    assert all(expected[q, 100].total_matches for q in QUERIES[:-1])
    write_base(root)
    assert base_rows(root) > 0
    reopened = SearchIndex(FileStore(root))
    assert reopened.refresh().from_cache == 9
    assert answers(reopened) == expected
    assert answered_by_base(reopened)
    # A query whose hits are in one workspace reads its hits' document rows, and no scope's payload.
    plain = SearchIndex(FileStore(root), cache_dir=False)
    plain.refresh()
    untouched = SearchIndex(FileStore(root))
    untouched.refresh()
    assert untouched.search("zebra3", limit=5) == plain.search("zebra3", limit=5)
    segments = untouched._state.segments.values()
    assert not any(seg.body.loaded for seg in segments)
    read = [seg.key for seg in segments if seg.lazy.get("hit_docs")]
    assert read == [untouched.store.find_workspace("/w/3").key]  # type: ignore[union-attr]


def test_walks_that_score_their_pool_at_once_answer_as_a_fresh_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A threshold walk that meets many documents scores the rest of its pool at once from dense
    weight arrays (over the base, with expansions beside it): the same answers, cut for cut."""
    root = build(tmp_path)
    expected = fresh(root)
    write_base(root)
    reopened = SearchIndex(FileStore(root))
    reopened.refresh()
    monkeypatch.setattr(index, "WALK_MAX", 0)
    assert answers(reopened) == expected
    assert answered_by_base(reopened)


@pytest.mark.parametrize("rebuild", [False, True])
def test_commits_after_the_base_was_written_rank_as_a_fresh_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rebuild: bool
) -> None:
    # Without a rebuild the changed scopes are searched segment by segment beside the base (their
    # base documents masked); with one, the builder writes a new base over the rows as they are.
    monkeypatch.setattr(index, "BASE_KEEP_SHARE", 1.0 if rebuild else 0.0)
    root = build(tmp_path)
    write_base(root)
    store = FileStore(root)
    ix = SearchIndex(store)
    ix.refresh()
    ix.search("pnpm", limit=5)  # (views over the base, memoized before the commits)
    # In this process: a put that adds words, a delete, a workspace that is new.
    snap = store.find_workspace("/w/1")
    assert snap is not None
    added = rec("r-1-new", "pnpm quagga lockfile committed 打包用了")
    heavy = rec("r-1-heavy", "pnpm " * 400)  # (the best BM25 of all, in a scope beside the base)
    snap = store.commit(snap.key, [PutOp(record=added), PutOp(record=heavy)], snap.revision)
    ix.apply(snap)
    snap2 = store.find_workspace("/w/2")
    assert snap2 is not None
    snap2 = store.commit(snap2.key, [DeleteOp(name="deploy-notes")], snap2.revision)
    ix.apply(snap2)
    ix.apply(put(store, "/w/new", [rec("deploy-notes", "pnpm electron-builder 回滚")]))
    # In another process, then seen by a refresh.
    other = FileStore(root)
    snap5 = other.find_workspace("/w/5")
    assert snap5 is not None
    other.commit(snap5.key, [PutOp(record=rec("r-5-0", "use pnpm twice: pnpm"))], snap5.revision)
    age_recent(root)
    tokens = base_tokens(root)
    ix.refresh()
    assert base_builder.build(root) == rebuild  # (what the builder process does when the base is stale)
    ix.refresh()  # (opens the new base, if any)
    assert (base_tokens(root) != tokens) == rebuild
    expected = fresh(root)
    assert expected["pnpm", 3].hits[0].name == "r-1-heavy"
    assert answers(ix) == expected
    assert answered_by_base(ix)
    overlay = [v for v in ix._state.views.values() if v.base is not None and v.segs]
    assert bool(overlay) != rebuild
    # And a fresh process over the rows those commits rewrote (the base is as it was).
    again = SearchIndex(FileStore(root))
    again.refresh()
    assert answers(again) == expected
    assert answered_by_base(again)


def test_archived_and_scoped_searches_mask_the_base(tmp_path: Path) -> None:
    root = build(tmp_path)
    store = FileStore(root)
    snap = store.find_workspace("/w/4")
    assert snap is not None
    store.archive(snap.key, snap.revision)
    age_files(root)
    plain = SearchIndex(FileStore(root), cache_dir=False)
    plain.refresh()
    keys = [w.key for w in store.list_workspaces()][:5]
    cases = [({}, q) for q in QUERIES] + [({"include_archived": True}, q) for q in QUERIES[:6]]
    cases += [({"scopes": keys}, q) for q in QUERIES[:6]]
    expected = [plain.search(q, limit=100, **kw) for kw, q in cases]  # type: ignore[arg-type]
    write_base(root)
    ix = SearchIndex(FileStore(root))
    ix.refresh()
    assert [ix.search(q, limit=100, **kw) for kw, q in cases] == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("how", ["damaged", "replaced", "gone"])
def test_a_base_that_is_damaged_or_replaced_is_never_trusted(tmp_path: Path, how: str) -> None:
    root = build(tmp_path)
    expected = fresh(root)
    write_base(root)
    ix = SearchIndex(FileStore(root))
    ix.refresh()  # (opens the base)
    with sqlite3.connect(root / ".manager" / "cache" / DB_FILE) as con:
        if how == "damaged":  # every term row fails its checksum
            con.execute("UPDATE base_terms SET data = substr(data, 1, 40) || x'00' || substr(data, 42)")
        elif how == "replaced":  # another process rebuilt it (another token)
            con.execute("UPDATE base_terms SET token = 'another'")
            con.execute("UPDATE base SET token = 'another'")
        else:
            con.execute("DELETE FROM base_terms")
    assert answers(ix) == expected
    assert not answered_by_base(ix) or all(v.base is None or v.base.dead for v in ix._state.views.values())


@pytest.mark.parametrize("how", ["damaged", "gone"])
def test_a_phrase_scan_over_the_base_never_trusts_a_damaged_document_row(tmp_path: Path, how: str) -> None:
    """A quoted phrase over the base reads the candidates' document rows, a scope at a time: a row
    that fails its check (or is missing) sends that scope to its files, and the answer is a fresh
    build's."""
    root = build(tmp_path)
    phrases = ('"use pnpm"', '"打包用了"', '"full-width file"', '"lockfile is committed"')
    plain = SearchIndex(FileStore(root), cache_dir=False)
    plain.refresh()
    expected = {q: plain.search(q, limit=100) for q in phrases}
    assert all(r.total_matches for r in expected.values())
    write_base(root)
    with sqlite3.connect(root / ".manager" / "cache" / DB_FILE) as con:
        # (one workspace's rows: the other scopes are still the base's, so the base stays in use)
        sid = con.execute("SELECT sid FROM docs WHERE sid != (SELECT min(sid) FROM docs) ORDER BY sid").fetchone()[0]
        if how == "damaged":  # texts changed, check not: trusted, the scope's matches would be lost
            for i, data in con.execute("SELECT i, data FROM docs WHERE sid = ?", (sid,)).fetchall():
                values = marshal.loads(data[cache.DOC_DIGEST :])
                values[-3:] = ["", "nothing here", ""]
                new = data[: cache.DOC_DIGEST] + marshal.dumps(values)
                con.execute("UPDATE docs SET data = ? WHERE sid = ? AND i = ?", (new, sid, i))
        else:
            con.execute("DELETE FROM docs WHERE sid = ? AND i % 2 = 1", (sid,))
    ix = SearchIndex(FileStore(root))
    ix.refresh()
    assert {q: ix.search(q, limit=100) for q in phrases} == expected
    assert answered_by_base(ix)


def test_a_big_cli_search_starts_the_builder_and_later_searches_read_its_base(tmp_path: Path) -> None:
    """The builder is a detached process of its own: the CLI search that starts it returns at once."""
    root = build(tmp_path)
    expected = fresh(root)
    env = {**os.environ, "DSH_MEMORY_BASE_MIN_DOCS": "1", "HOME": str(tmp_path), "DSH_HOME": str(tmp_path / "dsh")}
    cli = [sys.executable, "-m", "core.cli.main", "--root", str(root), "--json", "search", "pnpm", "--all"]
    done = subprocess.run(cli, env=env, capture_output=True, text=True, timeout=120, cwd=Path(__file__).parents[3])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["total_matches"] == expected["pnpm", 100].total_matches
    deadline = time.monotonic() + 90
    while not base_tokens(root) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert base_tokens(root), "the builder wrote a base"
    ix = SearchIndex(FileStore(root))
    ix.refresh()
    assert answers(ix) == expected
    assert answered_by_base(ix)


def test_a_folder_whose_stamp_alone_changed_keeps_its_row_and_its_slot(tmp_path: Path) -> None:
    """A folder touched without a file changing (its mtime, as some tools leave it) is looked at
    again, found unchanged, and only its row's meta records the new stamp: the payload is not
    rewritten, so the row keeps its token and the base keeps answering for that scope."""
    root = build(tmp_path)
    write_base(root)
    folder = next(p for p in (root / "workspaces").iterdir() if p.is_dir())
    with sqlite3.connect(root / ".manager" / "cache" / DB_FILE) as con:
        before = dict(con.execute("SELECT sid, token FROM scopes").fetchall())
    past = time.time() - 600
    os.utime(folder, (past, past))
    ix = SearchIndex(FileStore(root))
    assert ix.refresh().scopes_reread == 0
    with sqlite3.connect(root / ".manager" / "cache" / DB_FILE) as con:
        assert dict(con.execute("SELECT sid, token FROM scopes").fetchall()) == before
    again = SearchIndex(FileStore(root))
    again.refresh()
    assert answers(again) == fresh(root)
    assert [v for v in again._state.views.values() if v.base is not None and not v.segs]  # no overlay
