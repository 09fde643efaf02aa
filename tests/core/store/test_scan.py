"""``scan_workspace`` (the bulk read of the search build) agrees with ``read_workspace``: the same
revision, and exactly the valid records' fields once ``records.record_fields`` reads the bytes.
Over both stores, with the odd files a person or another tool leaves in a scope."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_record_fast_path import _VALUES, canonical, verdict
from test_store_contract import put_raw, rec

from core.errors import NotFoundError
from core.models import PutOp, Record
from core.records import MAX_RECORD_BYTES, record_fields
from core.store.base import StoreCore
from core.store.fs import FileStore

ODD_FILES = {
    "crlf.md": b"---\r\nname: crlf\r\ndescription: d\r\nmetadata:\r\n  type: project\r\n---\r\nx\r\n",
    "bom.md": b"\xef\xbb\xbf---\nname: bom\ndescription: d\nmetadata:\n  type: project\n---\nx\n",
    "yaml-form.md": b"---\ndescription: 'quoted'\nname: yaml-form\nmetadata: {type: feedback}\nextra: 1\n---\nbody\n",
    "alias.md": b"---\nname: &n alias\ndescription: *n\nmetadata:\n  type: project\n---\nx\n",
    "wrong-name.md": canonical("other", "d", "project"),
    "latin1.md": b"---\nname: latin1\ndescription: caf\xe9\nmetadata:\n  type: project\n---\n",
    "huge.md": canonical("huge", "d", "project", "x" * (MAX_RECORD_BYTES + 1)),
    "Case.md": canonical("case", "d", "project"),
    "case.md": canonical("case", "d", "project"),
    "notes.md": b"not a record",
    "empty.md": b"",
    ("n" * 200) + ".md": canonical("n" * 200, "d", "project"),
}


def fields_of_scan(store: StoreCore, key: str) -> dict[str, tuple[str, str, str, str]]:
    scan = store.inspect.scan(key)
    return {
        r.file_name: f
        for r in scan.records
        if r.data is not None and (f := record_fields(r.file_name, r.data)) is not None
    }


def test_a_scan_gives_what_a_read_gives(store: StoreCore, tmp_path: Path) -> None:
    snap = store.create_workspace("/w/scan")
    snap = store.commit(snap.key, [PutOp(record=rec("plain")), PutOp(record=rec("cjk", "\n打包用了 pnpm\n"))], None)
    for name, data in ODD_FILES.items():
        put_raw(store, snap.key, name, data)
    if isinstance(store, FileStore):  # (kinds only a file system has: never followed, never read)
        folder = store.root / "workspaces" / snap.key
        (tmp_path / "outside.md").write_bytes(canonical("outside", "d", "project"))
        os.symlink(tmp_path / "outside.md", folder / "outside.md")
        (folder / "dir.md").mkdir()
    read = store.read_workspace(snap.key)
    scan = store.inspect.scan(snap.key)
    assert scan.revision == read.revision and scan.cwd == read.info.cwd == "/w/scan"
    assert [r.file_name for r in scan.records] == [e.file_name for e in read.entries]
    assert [(r.revision, r.mtime_ns) for r in scan.records] == [(e.revision, e.mtime_ns) for e in read.entries]
    valid = {e.file_name: e.record for e in read.entries if e.is_valid and e.record is not None}
    assert fields_of_scan(store, snap.key) == {
        n: (r.name, r.description, r.type, r.body) for n, r in valid.items()
    }
    assert set(valid) == {"plain.md", "cjk.md", "yaml-form.md", "case.md"}


def test_a_scan_of_a_missing_workspace_is_not_found(store: StoreCore) -> None:
    with pytest.raises(NotFoundError):
        store.inspect.scan("0-0000000000000000")


@settings(max_examples=300, deadline=None)
@given(_VALUES, _VALUES, _VALUES, st.sampled_from(["\nBody.\n", "", "x\x00y", "\n---\nmore\n"]))
def test_record_fields_give_the_parsers_verdict(name: str, description: str, type_: str, body: str) -> None:
    data = canonical(name, description, type_, body)
    for file_name in ("build-tips.md", f"{name}.md"):
        v = verdict(file_name, data)
        want = (v.name, v.description, v.type, v.body) if isinstance(v, Record) else None
        assert record_fields(file_name, data) == want
