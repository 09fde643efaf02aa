"""Search's value types keep the frozen-dataclass contract without importing dataclasses
(``core/frozen.py``): immutable, equal by their fields (the timing left out), hashable, copyable."""

from __future__ import annotations

import copy
import pickle

import pytest

from core.frozen import FrozenInstanceError
from core.search import RefreshStats, SearchHit, SearchResults


def _hit(snippet: str = "uses pnpm") -> SearchHit:
    return SearchHit("proj-1", "/w/p", "record", "build", "project", "how we build", 1.5, snippet, ((5, 9),))


def test_results_are_equal_whatever_they_took_and_hash_alike() -> None:
    a = SearchResults("pnpm", (_hit(),), 1, False, 40, elapsed_ms=1.0)
    b = SearchResults("pnpm", (_hit(),), 1, False, 40, elapsed_ms=9.0)
    assert a == b and hash(a) == hash(b)
    assert a != SearchResults("pnpm", (_hit("other"),), 1, False, 40)
    assert RefreshStats(scopes_checked=2, elapsed_ms=1.0) == RefreshStats(scopes_checked=2, elapsed_ms=5.0)
    assert RefreshStats(scopes_checked=2) != RefreshStats(scopes_checked=3)
    assert _hit() != ("proj-1",) and _hit() != object()  # (another type is never equal)


def test_fields_cannot_be_assigned_or_deleted() -> None:
    hit = _hit()
    with pytest.raises(FrozenInstanceError):
        hit.snippet = "changed"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del hit.name
    assert hit.snippet == "uses pnpm" and hit.name == "build"


def test_replace_copy_pickle_and_json_keep_every_field() -> None:
    hit = _hit()
    shorter = hit.replace(snippet="uses", highlights=((0, 4),))
    assert (shorter.snippet, shorter.highlights, shorter.name, shorter.file_name) == ("uses", ((0, 4),), "build", "")
    assert hit.snippet == "uses pnpm"  # (a copy: the original unchanged)
    with pytest.raises(TypeError):
        hit.replace(no_such_field=1)
    for again in (copy.copy(hit), copy.deepcopy(hit), pickle.loads(pickle.dumps(hit))):
        assert again == hit and again.mtime_ns == hit.mtime_ns
    assert hit.to_json()["highlights"] == [[5, 9]] and "mtime_ns" not in hit.to_json()
    assert list(hit.to_json())[:3] == ["scope_key", "cwd", "kind"]  # (in the fields' order, as before)
    assert repr(hit).startswith("SearchHit(scope_key='proj-1', cwd='/w/p', kind='record'")
