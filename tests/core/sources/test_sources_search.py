"""Searching other stores: Chinese bigrams and English words, every status found and labelled."""

from __future__ import annotations

from sources_support import World

from core.sources.discovery import SourcePaths, discover
from core.sources.models import ForeignEntry
from core.sources.search import search_entries


def _entries(world: World) -> list[ForeignEntry]:
    found = discover(SourcePaths.from_env(memory_root=world.root), world.store())
    return [e for s in found.sources for e in s.entries]


def test_chinese_query_finds_an_entry_by_bigrams(world: World) -> None:
    hits = search_entries(_entries(world), "打包为什么慢")
    assert hits and hits[0].entry.id == "mem-bbbbbbbbbb01"


def test_superseded_entries_are_found_with_their_status(world: World) -> None:
    hits = search_entries(_entries(world), "dev server port")
    by_id = {h.entry.id: h for h in hits}
    assert by_id["mem-aaaaaaaaaa03"].entry.status == "superseded"
    assert hits[0].entry.id == "mem-aaaaaaaaaa04"  # the live one ranks first
    assert search_entries(_entries(world), "   ") == []


def test_the_cli_searches_other_stores(world: World, cli: object) -> None:
    code, data = cli("sources", "--search", "electron-builder")  # type: ignore[operator]
    assert code == 0
    assert [h["id"] for h in data["hits"]][:1] == ["mem-bbbbbbbbbb01"]
    assert data["hits"][0]["label"] == "DSH workspace memory"
