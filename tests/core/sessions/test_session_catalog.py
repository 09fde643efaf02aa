"""SessionCatalog: listing, grouping, hiding, DSH's workspace registry, the revision cache, load."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from dsh_log_builders import conversation, header, title, user, write_session

from core import keys
from core.errors import NotFoundError
from core.sessions import SessionCatalog, parse_registry
from core.sessions.catalog import CACHE_FORMAT


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(root.rglob("*"))}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    sessions = tmp_path / "sessions"
    write_session(sessions, conversation(turns=2, session_id="a1", cwd="/w/alpha"), slug="--w-alpha--")
    write_session(
        sessions,
        conversation(turns=1, session_id="a2", cwd="/w/alpha"),
        slug="--w-alpha--",
        name="session.jsonl.zstd",
    )
    write_session(sessions, conversation(turns=3, session_id="b1", cwd="/w/beta"), slug="--w-beta--")
    write_session(
        sessions,
        conversation(turns=1, session_id="sub", cwd="/w/alpha", origin="subagent", depth=1),
        slug="--w-alpha--",
    )
    write_session(sessions, conversation(turns=1, session_id="lost", cwd=None), slug="_no-cwd")
    return sessions


def test_list_hides_subagents_and_groups_unassigned(root: Path) -> None:
    catalog = SessionCatalog(root)
    ids = {s.id for s in catalog.list()}
    assert ids == {"a1", "a2", "b1", "lost"}
    assert {s.id for s in catalog.list(include_subagents=True)} == ids | {"sub"}
    assert {s.id for s in catalog.list(include_unassigned=False)} == {"a1", "a2", "b1"}
    assert {s.id for s in catalog.list(cwd="/w/alpha")} == {"a1", "a2"}
    assert {s.id for s in catalog.list(cwd="/w/alpha/", include_subagents=True)} == {"a1", "a2", "sub"}
    assert catalog.list(cwd="/w/nowhere") == []
    lost = next(s for s in catalog.list() if s.id == "lost")
    assert lost.cwd is None and lost.workspace_key is None


def test_list_is_newest_first_and_carries_turns_and_sizes(root: Path) -> None:
    catalog = SessionCatalog(root)
    rows = catalog.list()
    stamps = [s.updated for s in rows]
    assert stamps == sorted(stamps, reverse=True)  # type: ignore[type-var]  # all set here
    b1 = next(s for s in rows if s.id == "b1")
    assert b1.turns == 3
    assert b1.size == (Path(b1.folder) / "session.jsonl").stat().st_size


def test_workspaces_use_dsh_registry_titles(root: Path, tmp_path: Path) -> None:
    home = tmp_path / "dsh-home"
    (home / "storages").mkdir(parents=True)
    (home / "storages" / "workspace.json").write_text(
        json.dumps(
            {
                "global": {"workspaceIds": ["w1"], "archivedSessionIds": ["a2"]},
                "tables": {"workspaces": {"w1": {"id": "w1", "path": "/w/alpha", "title": "Alpha Project"}}},
            }
        )
    )
    catalog = SessionCatalog(root, dsh_home=home)
    groups = catalog.workspaces()
    assert [(g.title, g.session_count) for g in groups] == [
        ("Alpha Project", 2),
        ("beta", 1),
        ("Unassigned", 1),
    ]
    assert groups[0].key == keys.workspace_key("/w/alpha") and groups[0].cwd == "/w/alpha"
    assert groups[-1].key is None and groups[-1].cwd is None
    archived = {s.id: s.archived_in_dsh for s in catalog.list()}
    assert archived == {"a1": False, "a2": True, "b1": False, "lost": False}
    assert {s.id for s in catalog.list(include_archived=False)} == {"a1", "b1", "lost"}
    assert catalog.load("a2").summary.archived_in_dsh


def test_a_broken_or_missing_registry_is_ignored(root: Path, tmp_path: Path) -> None:
    home = tmp_path / "dsh-home"
    assert len(SessionCatalog(root, dsh_home=home).workspaces()) == 3
    (home / "storages").mkdir(parents=True)
    (home / "storages" / "workspace.json").write_text("{not json")
    assert [g.title for g in SessionCatalog(root, dsh_home=home).workspaces()] == [
        "alpha",
        "beta",
        "Unassigned",
    ]


@pytest.mark.parametrize(
    "doc",
    [
        {"workspaces": [{"cwd": "/w/alpha", "name": "Alpha"}], "archivedSessions": [{"id": "x"}]},
        [{"root": "/w/alpha", "label": "Alpha", "archived": ["x"]}],
        {"workspaces": {"k": {"directory": "/w/alpha", "title": "Alpha", "sessions": [{"id": "x", "archived": True}]}}},
        {
            "tables": {"workspaces": {"k": {"path": "/w/alpha", "title": "Alpha"}}},
            "global": {"archivedSessionIds": {"x": True}},
        },
    ],
)
def test_registry_shapes_we_tolerate(doc: object) -> None:
    registry = parse_registry(doc)
    assert registry.titles == {keys.workspace_key("/w/alpha"): "Alpha"}
    assert registry.archived_session_ids == {"x"}


def test_registry_nonsense_is_empty() -> None:
    docs: list[object] = [None, 3, "x", {"workspaces": 5}, {"tables": []}, {"archived": True}]
    for doc in docs:
        registry = parse_registry(doc)
        assert not registry.titles and not registry.archived_session_ids


def test_default_roots_come_from_dsh_home(dsh_home: Path) -> None:
    write_session(dsh_home / "sessions", conversation(session_id="d1"))
    catalog = SessionCatalog()
    assert catalog.sessions_root == dsh_home / "sessions"
    assert catalog.dsh_home == dsh_home
    assert [s.id for s in catalog.list()] == ["d1"]


def test_second_listing_parses_nothing_unchanged(root: Path) -> None:
    catalog = SessionCatalog(root)
    first = catalog.list(include_subagents=True)
    assert catalog.parse_count == 5
    second = catalog.list(include_subagents=True)
    assert catalog.parse_count == 5
    assert second == first

    # an append changes one revision: exactly one re-parse
    log = Path(next(s for s in first if s.id == "b1").folder) / "session.jsonl"
    with open(log, "ab") as handle:
        handle.write(json.dumps(user(500, "one more thing")).encode() + b"\n")
    third = {s.id: s for s in catalog.list(include_subagents=True)}
    assert catalog.parse_count == 6
    assert third["b1"].turns == 4

    # a new generation file replaces the log: one re-parse of that folder only
    write_session(
        root,
        conversation(version=2, turns=5, session_id="a1", cwd="/w/alpha"),
        slug="--w-alpha--",
        name="session.v2.jsonl.zstd",
    )
    fourth = {s.id: s for s in catalog.list(include_subagents=True)}
    assert catalog.parse_count == 7
    assert fourth["a1"].turns == 5
    assert fourth["a1"].revision.path.endswith("session.v2.jsonl.zstd")


def test_unreadable_folders_are_reported_not_fatal(root: Path) -> None:
    write_session(root, b"garbage\n", slug="--w-beta--", folder="bad")
    (root / "--w-beta--" / "empty-folder").mkdir()
    (root / "stray-file.txt").write_text("x")
    catalog = SessionCatalog(root)
    assert len(catalog.list()) == 4
    assert list(catalog.problems) == [str(root / "--w-beta--" / "bad")]
    assert "should be the session header" in next(iter(catalog.problems.values()))
    parses = catalog.parse_count
    catalog.list()
    assert catalog.parse_count == parses  # a broken file is not re-read either


def test_missing_root_lists_nothing(tmp_path: Path) -> None:
    catalog = SessionCatalog(tmp_path / "nope")
    assert catalog.list() == [] and catalog.workspaces() == []


def test_load_by_id_folder_or_summary(root: Path) -> None:
    catalog = SessionCatalog(root)
    summary = next(s for s in catalog.list() if s.id == "b1")
    by_summary = catalog.load(summary)
    by_id = catalog.load("b1")
    by_folder = catalog.load(summary.folder)
    assert by_summary.events == by_id.events == by_folder.events
    assert by_id.summary == summary
    assert catalog.load("sub").summary.is_subagent  # hidden from list(), still loadable
    with pytest.raises(NotFoundError) as caught:
        catalog.load("zzz")
    assert caught.value.reason == "session"


def test_load_of_a_deleted_session_is_not_found(root: Path) -> None:
    catalog = SessionCatalog(root)
    summary = next(s for s in catalog.list() if s.id == "a1")
    for child in Path(summary.folder).iterdir():
        child.unlink()
    with pytest.raises(NotFoundError) as caught:
        catalog.load(summary)
    assert caught.value.reason == "session-log"


def test_duplicate_ids_are_an_ambiguity_never_a_silent_pick(tmp_path: Path) -> None:
    """Issue 26: sessions sharing an id name both; each still loads from its own folder."""
    from core.errors import AmbiguousSessionError

    root = tmp_path / "sessions"
    old = [header("dup"), user(0, "old"), title(1, "Old")]
    new = [header("dup"), user(5, "new"), title(6, "New")]
    write_session(root, old, folder="f1")
    write_session(root, new, folder="f2")
    catalog = SessionCatalog(root)
    with pytest.raises(AmbiguousSessionError) as caught:
        catalog.load("dup")
    assert "f1" in caught.value.message and "f2" in caught.value.message
    assert sorted(catalog.load(s).summary.title for s in catalog.list()) == ["New", "Old"]


def test_reading_never_writes_under_the_root(root: Path) -> None:
    lock_folder = root / "--w-beta--" / "b1"
    (lock_folder / "session.lock").write_text(json.dumps({"pid": os.getpid()}))
    before = _tree(root)
    catalog = SessionCatalog(root)
    for summary in catalog.list(include_subagents=True):
        catalog.load(summary)
        catalog.is_stable(summary)
    catalog.workspaces()
    assert _tree(root) == before


def test_listing_from_several_threads_at_once(root: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    catalog = SessionCatalog(root)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: catalog.list(include_subagents=True), range(16)))
    assert all(r == results[0] for r in results)
    assert catalog.parse_count == 5  # each session parsed once, whoever came first


def test_a_new_generation_makes_a_listed_summary_stale(root: Path) -> None:
    catalog = SessionCatalog(root)
    summary = next(s for s in catalog.list() if s.id == "b1")
    new = write_session(
        root,
        conversation(version=1, turns=1, session_id="b1", cwd="/w/beta"),
        slug="--w-beta--",
        name="session.v1.jsonl",
    )
    old_time = summary.revision.mtime_ns / 1e9 - 3600
    for log in new.iterdir():
        os.utime(log, (old_time, old_time))
    ok, reason = catalog.is_stable(summary)
    assert not ok and "changed since it was listed" in reason


def test_persisted_cache_spares_a_fresh_instance_the_parses(root: Path, tmp_path: Path) -> None:
    cache = tmp_path / "app-cache" / "sessions.json"
    first = SessionCatalog(root, cache_file=cache)
    listed = first.list(include_subagents=True)
    assert first.parse_count == 5 and cache.is_file()
    before = _tree(root)

    second = SessionCatalog(root, cache_file=cache)
    assert second.list(include_subagents=True) == listed
    assert second.parse_count == 0

    log = Path(next(s for s in listed if s.id == "a1").folder) / "session.jsonl"
    with open(log, "ab") as handle:
        handle.write(json.dumps(user(700, "later")).encode() + b"\n")
    third = SessionCatalog(root, cache_file=cache)
    assert next(s for s in third.list() if s.id == "a1").turns == 3
    assert third.parse_count == 1
    assert set(_tree(root)) == set(before)  # the cache lives outside; nothing new under the root


@pytest.mark.parametrize(
    "content", [b"{broken", b"[]", b'{"format": 999}', b'{"format": 1, "root": "/elsewhere", "entries": {}}']
)
def test_a_useless_cache_file_is_ignored(root: Path, tmp_path: Path, content: bytes) -> None:
    cache = tmp_path / "sessions.json"
    cache.write_bytes(content)
    catalog = SessionCatalog(root, cache_file=cache)
    assert len(catalog.list()) == 4 and catalog.parse_count == 5
    assert json.loads(cache.read_bytes())["format"] == CACHE_FORMAT  # rewritten usable


def test_tampered_cache_entries_are_dropped(root: Path, tmp_path: Path) -> None:
    cache = tmp_path / "sessions.json"
    SessionCatalog(root, cache_file=cache).list()
    doc = json.loads(cache.read_bytes())
    folder = next(iter(doc["entries"]))
    doc["entries"][folder]["summary"]["turns"] = "many"
    cache.write_text(json.dumps(doc))
    catalog = SessionCatalog(root, cache_file=cache)
    catalog.list()
    assert catalog.parse_count == 1


def test_the_cache_file_may_not_live_under_the_sessions_root(root: Path) -> None:
    from core.errors import UsageError

    with pytest.raises(UsageError) as caught:
        SessionCatalog(root, cache_file=root / "--w-beta--" / "cache.json")
    assert caught.value.reason == "cache-inside-sessions"
