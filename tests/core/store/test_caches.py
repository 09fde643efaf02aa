"""Issue 27: the store's caches are objects the store owns, shared between stores only explicitly.

No module of the store (nor the session-file reader) keeps a process-wide cache; a reopened store is
warm when handed the first one's :class:`StoreCaches`, cold otherwise, and reads the same either way.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import core.store
from core.models import PutOp, Record
from core.store.caches import StoreCaches
from core.store.fs import FileStore
from core.store.fs_read import ScopeReader


def _modules() -> list[str]:
    return [f"core.store.{m.name}" for m in pkgutil.iter_modules(core.store.__path__)] + ["core.sessions.files"]


@pytest.mark.parametrize("name", _modules())
def test_no_module_keeps_a_mutable_cache(name: str) -> None:
    module = importlib.import_module(name)
    state = {k: v for k, v in vars(module).items() if not k.startswith("__")}
    mutable = {k: type(v).__name__ for k, v in state.items() if isinstance(v, dict | list | set)}
    assert mutable == {}, f"{name} keeps module-level state: {mutable}"


def _root(tmp_path: Path) -> tuple[Path, str]:
    store = FileStore(tmp_path / "memory")
    s = store.create_workspace("/home/me/cached")
    records = [PutOp(record=Record(name=f"r{i}", description="d", type="project", body="\nb\n")) for i in range(20)]
    store.commit(s.key, records, s.revision)
    return tmp_path / "memory", s.key


def test_a_reopen_is_warm_only_with_the_caches_it_is_handed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, key = _root(tmp_path)
    parsed: list[str] = []
    real = ScopeReader.entry

    def counting(self: ScopeReader, de: object, *args: object) -> object:
        parsed.append(getattr(de, "name", "?"))
        return real(self, de, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(ScopeReader, "entry", counting)
    first = FileStore(root)
    cold = first.read_workspace(key)
    assert len(parsed) == 20 and first.caches.parsed == 20  # the caches count what they parsed
    parsed.clear()
    warm = FileStore(root, caches=first.caches).read_workspace(key)
    assert parsed == [] and warm == cold  # (a racily clean file is re-read and hashed, never re-parsed)
    assert first.caches.parsed == 20
    fresh = FileStore(root).read_workspace(key)  # caches of its own: parses again, reads the same
    assert len(parsed) == 20 and fresh == cold
    assert first.caches is not FileStore(root).caches and isinstance(first.caches, StoreCaches)
