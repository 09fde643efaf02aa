"""Whatever bytes the other stores hold, reading them never raises and never changes them."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.records import NAME_RE
from core.sources.discovery import SourcePaths, discover
from core.sources.naming import kebab_name

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_contents = st.one_of(
    st.binary(max_size=200),
    _json_values.map(lambda v: json.dumps(v).encode()),
    st.text(max_size=200).map(lambda t: t.encode("utf-8")),
)


@settings(deadline=None)  # the first call loads pypinyin's dictionaries
@given(st.text(max_size=80))
def test_kebab_names_are_always_valid_or_empty(title: str) -> None:
    name = kebab_name(title)
    assert name == "" or NAME_RE.match(name)
    assert len(name) <= 60


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=_contents, notes=_contents, manifest=_contents, topic=_contents)
def test_garbage_in_every_store_is_reported_not_raised(
    tmp_path_factory: pytest.TempPathFactory, entries: bytes, notes: bytes, manifest: bytes, topic: bytes
) -> None:
    base = tmp_path_factory.mktemp("garbage")
    home, dsh, cwd = base / "home", base / "dsh", base / "work" / "w"
    scope = dsh / "workspace-memory" / "scopes" / "ws-0123456789abcdef0123"
    files = {
        scope / "scope.json": b'{"key": "x", "cwd": "/x"}',
        scope / "memory_entries.json": entries,
        dsh / "memory" / "memory.json": notes,
        cwd / "project_memory" / "sp" / "manifest.json": manifest,
        home / ".claude" / "projects" / "-w" / "memory" / "t.md": topic,
        home / ".claude" / "projects" / "-w" / "memory" / "MEMORY.md": topic,
    }
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    found = discover(SourcePaths(dsh_home=dsh, home=home), extra_cwds=[str(cwd)])
    assert {s.kind for s in found.sources} >= {"workspace-memory", "cross-workspace", "claude-code"}
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files} == before


def test_a_fifo_in_place_of_a_store_file_is_reported_not_read(tmp_path: object) -> None:
    import os
    from pathlib import Path

    base = Path(str(tmp_path))
    (base / "dsh" / "memory").mkdir(parents=True)
    os.mkfifo(base / "dsh" / "memory" / "memory.json")
    found = discover(SourcePaths(dsh_home=base / "dsh", home=base / "home"))
    [cw] = [s for s in found.sources if s.kind == "cross-workspace"]
    assert "not a regular file" in cw.problems[0].reason
