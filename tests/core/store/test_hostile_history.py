"""Issue 9, items 8, 9, 10 and "Also": history can't change or leak, modes never widen, secrets,
purge confirmation, and ``check`` naming every condition it can see."""

from __future__ import annotations

import io
import json
import os
import stat
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest
from hostile_support import CWD, rec

from core.cli.main import main
from core.errors import ConfirmationRequiredError, SecretRefusedError
from core.keys import workspace_key
from core.models import PutOp
from core.records import render_record
from core.store.files import RECEIPTS
from core.store.fs import FileStore
from core.store.memory import InMemoryStore


# --- item 8: history ----------------------------------------------------------------------------
def test_history_is_a_read_only_copy_a_process_holding_the_old_file_cannot_rewrite(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("fact", "\nv1\n"))], s.revision)
    path = tmp_path / "m" / "workspaces" / s.key / "fact.md"
    held = open(path, "r+b")  # noqa: SIM115 - an editor holding the old file open across the save
    try:
        s = store.commit(s.key, [PutOp(record=rec("fact", "\nv2\n"))], s.revision)
        held.seek(0)
        held.write(b"scribbled over")
        held.flush()
    finally:
        held.close()
    (entry,) = store.history.entries(s.key, "fact")
    assert store.history.read(entry.id) == render_record(rec("fact", "\nv1\n"))  # unchanged: a copy
    hist = store.history_files.path(entry.id)
    assert stat.S_IMODE(hist.stat().st_mode) & 0o222 == 0  # read-only
    assert hist.stat().st_nlink == 1 and hist.stat().st_ino != path.stat().st_ino


@pytest.mark.parametrize("backend", ["fs", "memory"])
def test_restoring_a_version_with_a_secret_needs_the_explicit_allow(tmp_path: Path, backend: str) -> None:
    store = FileStore(tmp_path / "m") if backend == "fs" else InMemoryStore()
    s = store.create_workspace(CWD)
    secret = "\nDB_PASSWORD=hunter2024\n"
    s = store.commit(s.key, [PutOp(record=rec("db", secret))], s.revision, allow_secrets=True)
    s = store.commit(s.key, [PutOp(record=rec("db", "\nuse the vault\n"))], s.revision)
    (entry,) = store.history.entries(s.key, "db")
    with pytest.raises(SecretRefusedError):
        store.history.restore(entry.id, s.revision)
    assert store.read_workspace(s.key).get("db").record.body == "\nuse the vault\n"  # type: ignore[union-attr]
    store.history.restore(entry.id, s.revision, allow_secrets=True)
    assert store.read_workspace(s.key).get("db").record.body == secret  # type: ignore[union-attr]


@pytest.mark.parametrize("backend", ["fs", "memory"])
def test_restoring_newest_first_keeps_every_version_being_browsed(
    tmp_path: Path, backend: str, clock: Callable[[], datetime]
) -> None:
    store = FileStore(tmp_path / "m", clock=clock) if backend == "fs" else InMemoryStore(clock=clock)
    s = store.create_workspace(CWD)
    for i in range(21):
        s = store.commit(s.key, [PutOp(record=rec("fact", f"\nv{i}\n"))], s.revision)
    browsing = store.history.entries(s.key, "fact")
    assert len(browsing) == 20
    for entry in browsing:  # newest first, as the Recycle Bin lists them
        s = store.history.restore(entry.id, s.revision)
    still = {h.id for h in store.history.entries(s.key, "fact")}
    assert {e.id for e in browsing} <= still


# --- item 9: permissions --------------------------------------------------------------------------
def test_modes_are_kept_on_overwrite_and_new_files_are_private(tmp_path: Path) -> None:
    root = tmp_path / "m"
    store = FileStore(root)
    store.replace_global("# G\n", None)
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("fact"))], s.revision)
    d = root / "workspaces" / s.key
    for p in (root / "GLOBAL.md", d / "fact.md", d / "scope.json", d / "MEMORY.md"):
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
    assert stat.S_IMODE(d.stat().st_mode) == 0o700
    assert stat.S_IMODE(root.stat().st_mode) == 0o700  # a root the store created is private too
    os.chmod(root / "GLOBAL.md", 0o640)
    os.chmod(d / "fact.md", 0o640)
    store.replace_global("# G2\n", None)
    s = store.commit(s.key, [PutOp(record=rec("fact", "\nv2\n"))], s.revision)
    assert stat.S_IMODE((root / "GLOBAL.md").stat().st_mode) == 0o640
    assert stat.S_IMODE((d / "fact.md").stat().st_mode) == 0o640
    store.files(RECEIPTS).write("r1", "x")
    assert stat.S_IMODE((root / "reviews" / "r1.md").stat().st_mode) == 0o600


def test_new_files_are_no_wider_than_their_folders_existing_files(tmp_path: Path) -> None:
    root = tmp_path / "m"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    d = root / "workspaces" / s.key
    os.chmod(d / "scope.json", 0o640)
    s = store.commit(s.key, [PutOp(record=rec("fresh"))], s.revision)
    assert stat.S_IMODE((d / "fresh.md").stat().st_mode) == 0o640


def test_a_0600_record_stays_0600_under_a_permissive_umask(tmp_path: Path) -> None:
    old = os.umask(0o000)
    try:
        store = FileStore(tmp_path / "m")
        s = store.create_workspace(CWD)
        s = store.commit(s.key, [PutOp(record=rec("fact"))], s.revision)
        s = store.commit(s.key, [PutOp(record=rec("fact", "\nv2\n"))], s.revision)
        p = tmp_path / "m" / "workspaces" / s.key / "fact.md"
        assert stat.S_IMODE(p.stat().st_mode) == 0o600
    finally:
        os.umask(old)


# --- item 10: secrets that used to get through --------------------------------------------------
SHAPES = [
    "Maps: AIza" + "SyD3fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5b",
    "HF_TOKEN=hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "bot 123456789:AA" + "HdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1",
    "Authorization: Basic " + "dXNlcjpodW50ZXIyMDI0",
    "curl -u admin:" + "Hunter2x https://ci.example.com",
    "mysql -u root -p" + "S3cretPw atlas",
    "sk-3f9a8b7c\u200b" + "6d5e4f30a1b2c3d4e5f6a7b8",
]


@pytest.mark.parametrize("line", SHAPES)
def test_the_new_secret_shapes_are_refused_on_put_and_redacted_in_recall(tmp_path: Path, line: str) -> None:
    store = FileStore(tmp_path / "m")
    s = store.create_workspace(CWD)
    with pytest.raises(SecretRefusedError):
        store.commit(s.key, [PutOp(record=rec("leak", f"\n{line}\n"))], s.revision)
    from core.secrets import redact

    assert redact(line) != line


# --- Also: purge confirmation ---------------------------------------------------------------------
def test_purge_is_confirmed_by_the_listed_name_and_a_bad_scope_only_by_its_full_key(tmp_path: Path) -> None:
    root = tmp_path / "m"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    store.recycle.archive(s.key)
    (root / "archived" / s.key / "scope.json").write_text(json.dumps({"cwd": "/etc"}))  # lies: not its key
    with pytest.raises(ConfirmationRequiredError) as caught:
        store.recycle.purge(s.key, "etc")
    assert caught.value.reason == "full-key" and caught.value.expected == s.key
    with pytest.raises(ConfirmationRequiredError):
        store.recycle.purge(s.key, "hostile")
    store.recycle.purge(s.key, s.key)
    assert not (root / "archived" / s.key).exists()
    t = store.create_workspace("/home/me/second")
    store.recycle.archive(t.key)
    with pytest.raises(ConfirmationRequiredError) as caught:
        store.recycle.purge(t.key, "wrong")
    assert caught.value.reason == "workspace-name" and caught.value.expected == "second"
    store.recycle.purge(t.key, "second")


# --- Also: check lists every condition with what to do --------------------------------------------
def test_check_lists_every_condition_it_can_see(tmp_path: Path) -> None:
    root = tmp_path / "m"
    store = FileStore(root)
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("fact"))], s.revision)
    other = store.create_workspace("/home/me/gone")
    store.commit(other.key, [PutOp(record=rec("x"))], other.revision)
    store.commit(other.key, [PutOp(record=rec("x", "\nv2\n"))], None)
    import shutil

    shutil.rmtree(root / "workspaces" / other.key)  # orphaned history
    (root / "workspaces" / "linked-0000000000000000").symlink_to(tmp_path)  # symlinked scope
    d = root / "workspaces" / s.key
    (d / ("z" * 200 + ".md")).write_bytes(render_record(rec("z" * 200)))  # over-long name
    unreadable = d / "secret.md"
    unreadable.write_bytes(render_record(rec("secret")))
    os.chmod(unreadable, 0)
    q = root / ".manager" / "staging" / workspace_key("/home/me/q")
    q.mkdir(parents=True)
    (q / "journal.json").write_text("{}")  # a damaged journal: quarantined at the next open
    FileStore(root)
    out = io.StringIO()
    code = main(["--root", str(root), "check"], stdout=out, stderr=io.StringIO())
    text = out.getvalue()
    os.chmod(unreadable, 0o600)
    assert code == 1
    for needle in ("symbolic link", "no longer exists", "limit is", "quarantine"):
        assert needle in text, (needle, text)
    if os.geteuid() != 0:  # root reads any file, so "unreadable" only exists for other users
        assert "can't be read" in text
    for line in text.splitlines():
        if line.startswith("- "):
            assert ";" in line or "." in line or "," in line  # each says what to do, not just what
