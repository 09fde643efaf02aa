"""The demo root (written through the store) and the reference workload generator."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from benchmarks.workload import generate_workload
from core.demo import INVALID_RECORD_NAME, MISSING_PROJECT, build_demo_root
from core.records import parse_record, render_index
from core.secrets import find_secrets
from core.store.fs import FileStore

_LINK = re.compile(r"\[\[([a-z0-9-]+)\]\]")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def test_demo_root_has_something_for_every_flag(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    build_demo_root(root)
    store = FileStore(root)

    active = store.list_workspaces()
    archived = store.list_workspaces(archived=True)
    assert len(active) >= 4 and len(archived) == 1
    by_name = {w.display_name: w for w in active}
    assert by_name[MISSING_PROJECT].cwd_exists is False
    assert all(w.cwd_exists for n, w in by_name.items() if n != MISSING_PROJECT)
    assert sum(w.invalid_count for w in active) == 1
    assert archived[0].archived_at is not None

    records = [r for w in active for r in store.read_workspace(w.key).records()]
    assert {r.type for r in records} == {"feedback", "project", "reference"}
    assert any(_CJK.search(r.body) for r in records) and any(not _CJK.search(r.body) for r in records)
    assert all(find_secrets(r.body) == [] for r in records)

    # Links: many resolve inside their workspace, exactly one is broken.
    broken = []
    resolved = 0
    for w in active:
        snap = store.read_workspace(w.key)
        names = {r.name for r in snap.records()}
        for r in snap.records():
            for target in _LINK.findall(r.body):
                if target in names:
                    resolved += 1
                else:
                    broken.append((r.name, target))
    assert resolved >= 5 and len(broken) == 1

    g = store.read_global()
    for section in ("## User Profile", "## User Preferences", "## General Tips"):
        assert section in g.text
    assert _CJK.search(g.text)

    history = store.history.entries()
    assert {h.reason for h in history} == {"overwrite", "delete"}

    problems = store.inspect.check()
    assert problems and all(p.path.endswith(INVALID_RECORD_NAME) for p in problems)


def test_workload_is_valid_deterministic_and_sized(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    generate_workload(a, workspaces=3, records=20, seed=7)
    generate_workload(b, workspaces=3, records=20, seed=7)

    def digest(root: Path) -> str:
        h = hashlib.sha256()
        for p in sorted(root.rglob("*")):
            if p.is_file():
                h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
        return h.hexdigest()

    assert digest(a) == digest(b)
    g = (a / "GLOBAL.md").read_bytes()
    assert 19_000 <= len(g) <= 22_000

    scopes = sorted((a / "workspaces").iterdir())
    assert len(scopes) == 3
    sizes = []
    for scope in scopes:
        files = sorted(p for p in scope.glob("*.md") if p.name != "MEMORY.md")
        assert len(files) == 20
        recs = [parse_record(p.name, p.read_bytes()) for p in files]  # raises if any is invalid
        sizes += [p.stat().st_size for p in files]
        assert (scope / "MEMORY.md").read_bytes() == render_index(recs)
    assert 700 <= sum(sizes) / len(sizes) <= 1400
    assert any(_CJK.search(p.read_text(encoding="utf-8")) for p in (a / "workspaces").rglob("*.md"))

    store = FileStore(a)
    assert len(store.list_workspaces()) == 3
    assert store.inspect.check() == []


def test_demo_root_brings_finished_sessions_to_consolidate(tmp_path: Path) -> None:
    from core.sessions import SessionCatalog
    from core.settings import load_settings
    from core.store.fs import FileStore

    root = tmp_path / "demo"
    build_demo_root(root)
    settings = load_settings(FileStore(root)).settings
    catalog = SessionCatalog(settings.resolved_sessions_root())
    sessions = catalog.list()
    assert {s.id for s in sessions} == {"demo-session-release", "demo-session-ci"}
    atlas = next(w for w in FileStore(root).list_workspaces() if w.display_name == "atlas-web")
    assert {s.workspace_key for s in sessions} == {atlas.key}
    assert all(catalog.is_stable(s)[0] for s in sessions)
