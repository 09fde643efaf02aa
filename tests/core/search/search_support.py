"""Shared helpers for the search tests: real stores, records, and file-age control."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

import tantivy

from core.fingerprint import RACY_WINDOW_NS
from core.models import PutOp, Record, RecordType, WorkspaceSnapshot
from core.search.engine import fields_of
from core.search.tokenizer import normalize, squash
from core.store.api import MemoryStore
from core.store.fs import FileStore
from core.store.memory import InMemoryStore


def make_store(kind: str, tmp_path: Path) -> MemoryStore:
    return FileStore(tmp_path / "memory") if kind == "fs" else InMemoryStore()


def rec(name: str, body: str, description: str = "", type_: RecordType = "project") -> Record:
    return Record(name=name, description=description or f"about {name}", type=type_, body=f"\n{body}\n")


def put(store: MemoryStore, cwd: str, records: Iterable[Record], *, allow_secrets: bool = False) -> WorkspaceSnapshot:
    snap = store.create_workspace(cwd)
    return store.commit(snap.key, [PutOp(record=r) for r in records], snap.revision, allow_secrets=allow_secrets)


def age_files(root: Path, seconds: float = 3600.0) -> None:
    """Backdate every file and folder under ``root`` so no fingerprint is 'racily clean' (see index.py)."""
    past = time.time() - seconds
    for dirpath, _dirs, files in os.walk(root, topdown=False):
        for f in files:
            os.utime(os.path.join(dirpath, f), (past, past))
        os.utime(dirpath, (past, past))
    _past_the_racy_window()


def _past_the_racy_window() -> None:
    """utime can't backdate ctime: wait until the files' ctimes are out of the racy window too."""
    time.sleep(RACY_WINDOW_NS / 1e9 + 0.02)


def set_mtime(path: Path, epoch_seconds: float) -> None:
    os.utime(path, (epoch_seconds, epoch_seconds))
    _past_the_racy_window()


def age_recent(root: Path, seconds: float = 1800.0) -> None:
    """Backdate only what changed in the last minute (a commit's files and folder), leaving the
    fingerprints of everything else as they were."""
    now = time.time()
    past = now - seconds
    for dirpath, _dirs, files in os.walk(root, topdown=False):
        for path in [os.path.join(dirpath, f) for f in files] + [dirpath]:
            if os.stat(path).st_mtime > now - 60:
                os.utime(path, (past, past))
    _past_the_racy_window()


def indexed_terms(text: str) -> list[str]:
    """The terms the index holds for ``text``, as tantivy's analyzers cut ``engine.fields_of``:
    words and CJK bigrams in text order, then compounds whole, then compounds without separators."""
    words, compounds, _ = fields_of(normalize(text))
    cut = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).build().analyze(words)
    whole = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build().analyze(compounds)
    return cut + whole + [squash(c) for c in whole]
