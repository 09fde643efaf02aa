"""The MemoryStore contract, run over the FileStore and the InMemoryStore alike."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from core.errors import (
    ConfirmationRequiredError,
    ConflictError,
    InvalidRecordError,
    NotFoundError,
    SecretRefusedError,
    UsageError,
)
from core.keys import workspace_key
from core.models import EMPTY_REVISION, DeleteOp, PutOp, Record
from core.records import INDEX_HEADER, render_index, render_record
from core.store.api import MemoryStore
from core.store.base import HISTORY_MAX_AGE, HISTORY_MAX_VERSIONS, StoreCore
from core.store.files import (
    AGENT_PROPOSALS,
    DEBUG_LOGS,
    RECEIPTS,
    REVIEW_STATES,
    SETTINGS,
    STALE_MARKS,
    FileKind,
)
from core.store.fs import FileStore
from core.store.memory import InMemoryStore

CWD = "/home/me/Proj Alpha"
FAKE_KEY = "sk-" + "Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Lz"  # assembled so no scanner flags this file


def rec(name: str, body: str = "\nA fact.\n", desc: str | None = None, rtype: str = "project") -> Record:
    return Record(name=name, description=desc or f"About {name}", type=rtype, body=body)  # type: ignore[arg-type]


def put_raw(store: StoreCore, key: str, file_name: str, data: bytes) -> None:
    """Write a file behind the store's back, as an editor or another tool would."""
    if isinstance(store, FileStore):
        (store.root / "workspaces" / key / file_name).write_bytes(data)
    else:
        assert isinstance(store, InMemoryStore)
        store.put_raw(key, file_name, data)


def test_both_backends_satisfy_the_protocol(store: StoreCore) -> None:
    typed: MemoryStore = store
    assert typed.status().workspace_count == 0


# --- Global ------------------------------------------------------------------------------------


def test_global_absent_has_empty_revision(store: StoreCore) -> None:
    g = store.read_global()
    assert (g.exists, g.text, g.revision, g.size) == (False, "", EMPTY_REVISION, 0)


def test_replace_global_with_cas(store: StoreCore) -> None:
    g1 = store.replace_global("# User Profile\nLikes tea.\n", EMPTY_REVISION)
    assert g1.exists and g1.text.startswith("# User Profile") and g1.revision != EMPTY_REVISION
    with pytest.raises(ConflictError) as info:
        store.replace_global("other", EMPTY_REVISION)
    assert info.value.current_revision == g1.revision
    assert info.value.current.text == g1.text
    assert store.read_global().text == g1.text
    g2 = store.replace_global("# User Profile\n喜欢喝茶。\n", g1.revision)
    assert store.read_global() == g2


def test_replace_global_same_text_is_noop(store: StoreCore) -> None:
    g1 = store.replace_global("hello\n", None)
    g2 = store.replace_global("hello\n", g1.revision)
    assert g1 == g2
    assert store.history.entries(key="global") == []


def test_global_overwrite_goes_to_history(store: StoreCore) -> None:
    store.replace_global("v1\n", None)
    store.replace_global("v2\n", None)
    (h,) = store.history.entries(key="global")
    assert store.history.read(h.id) == b"v1\n"
    with pytest.raises(UsageError):
        store.history.restore(h.id, None)


def test_global_rejects_nul(store: StoreCore) -> None:
    with pytest.raises(InvalidRecordError):
        store.replace_global("a\x00b", None)


# --- workspaces --------------------------------------------------------------------------------


def test_create_workspace_is_idempotent(store: StoreCore) -> None:
    s1 = store.create_workspace(CWD)
    assert s1.key == workspace_key(CWD)
    assert s1.info.cwd == CWD and s1.entries == () and s1.index_text == INDEX_HEADER
    s2 = store.create_workspace(CWD)
    assert s2.revision == s1.revision
    assert [i.key for i in store.list_workspaces()] == [s1.key]
    assert store.find_workspace(CWD) == s1
    assert store.find_workspace("/elsewhere") is None


def test_read_unknown_workspace(store: StoreCore) -> None:
    with pytest.raises(NotFoundError):
        store.read_workspace("nope-0000000000000000")
    with pytest.raises(NotFoundError):
        store.read_workspace("../../etc")


def test_commit_put_delete_and_index(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("b-rec")), PutOp(record=rec("a-rec", desc="用 pnpm 打包"))], s.revision)
    assert [e.file_name for e in s.entries] == ["a-rec.md", "b-rec.md"]
    assert s.index_text.encode() == render_index(s.records())
    assert "- [a-rec](a-rec.md) — 用 pnpm 打包\n" in s.index_text
    assert s.info.record_count == 2
    s = store.commit(s.key, [DeleteOp(name="b-rec")], s.revision)
    assert [e.name for e in s.entries] == ["a-rec"]
    assert "b-rec" not in s.index_text


def test_commit_conflict_writes_nothing(store: StoreCore) -> None:
    s0 = store.create_workspace(CWD)
    s1 = store.commit(s0.key, [PutOp(record=rec("one"))], s0.revision)
    with pytest.raises(ConflictError) as info:
        store.commit(s0.key, [PutOp(record=rec("two"))], s0.revision)
    assert info.value.current_revision == s1.revision
    assert info.value.current == s1
    assert store.read_workspace(s0.key) == s1


def test_noop_commit_returns_same_snapshot(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    s1 = store.commit(s.key, [PutOp(record=rec("one"))], s.revision)
    s2 = store.commit(s.key, [PutOp(record=rec("one"))], s1.revision)
    s3 = store.commit(s.key, [], s1.revision)
    assert s1 == s2 == s3
    assert store.history.entries(s.key) == []


def test_revision_changes_with_any_record_file(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    s1 = store.commit(s.key, [PutOp(record=rec("one"))], s.revision)
    put_raw(store, s.key, "notes.md", b"not a record")
    s2 = store.read_workspace(s.key)
    assert s2.revision != s1.revision
    assert s2.get("notes") is not None and not s2.get("notes").is_valid  # type: ignore[union-attr]


def test_invalid_records_are_refused_with_every_reason(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    bad = Record(name="Memory", description="two\nlines", type="project", body="x")
    with pytest.raises(InvalidRecordError) as info:
        store.commit(s.key, [PutOp(record=bad), PutOp(record=rec("memory"))], s.revision)
    text = " | ".join(info.value.reasons)
    assert "kebab-case" in text and "single line" in text and "reserved" in text
    assert store.read_workspace(s.key) == s


def test_batch_touching_a_name_twice_is_refused(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    with pytest.raises(InvalidRecordError):
        store.commit(s.key, [PutOp(record=rec("x")), DeleteOp(name="x")], s.revision)


def test_delete_missing_record_is_not_found(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    with pytest.raises(NotFoundError):
        store.commit(s.key, [DeleteOp(name="ghost")], s.revision)


def test_commit_into_unknown_workspace(store: StoreCore) -> None:
    with pytest.raises(NotFoundError):
        store.commit("nope-0000000000000000", [PutOp(record=rec("x"))], None)


def test_unknown_frontmatter_survives_body_edit(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    hand = (
        b"---\n# kept comment\ndescription: hand written\nname: hand\ntags: [a, b]\n"
        b"metadata:\n    source: chat\n    type: feedback\n---\nold body\n"
    )
    put_raw(store, s.key, "hand.md", hand)
    s = store.read_workspace(s.key)
    record = s.get("hand").record  # type: ignore[union-attr]
    assert record is not None and record.type == "feedback"
    s = store.commit(s.key, [PutOp(record=record.model_copy(update={"body": "new body\n"}))], s.revision)
    data = render_record(s.get("hand").record)  # type: ignore[arg-type, union-attr]
    assert data.endswith(b"new body\n")
    if isinstance(store, FileStore):
        on_disk = (store.root / "workspaces" / s.key / "hand.md").read_bytes()
        assert on_disk == hand.replace(b"old body\n", b"new body\n")


def test_secrets_refused_for_automatic_and_flagged_for_manual(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    leaky = rec("creds", body=f"\nThe key is {FAKE_KEY}\n")
    with pytest.raises(SecretRefusedError):
        store.commit(s.key, [PutOp(record=leaky)], s.revision, origin="automatic", allow_secrets=True)
    with pytest.raises(SecretRefusedError) as info:
        store.commit(s.key, [PutOp(record=leaky)], s.revision)
    assert info.value.findings and FAKE_KEY not in str(info.value)
    assert store.read_workspace(s.key) == s
    s2 = store.commit(s.key, [PutOp(record=leaky)], s.revision, allow_secrets=True)
    assert s2.get("creds") is not None
    with pytest.raises(SecretRefusedError):
        store.replace_global(f"token {FAKE_KEY}\n", None, origin="automatic")


def test_invalid_file_overwrite_is_manual_only(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    put_raw(store, s.key, "broken.md", b"---\nname: [\n---\n")
    s = store.read_workspace(s.key)
    assert s.info.invalid_count == 1
    with pytest.raises(InvalidRecordError):
        store.commit(s.key, [PutOp(record=rec("broken"))], s.revision, origin="automatic")
    with pytest.raises(InvalidRecordError):
        store.commit(s.key, [DeleteOp(name="broken")], s.revision, origin="automatic")
    s2 = store.commit(s.key, [PutOp(record=rec("broken"))], s.revision)
    assert s2.get("broken").is_valid  # type: ignore[union-attr]
    (h,) = store.history.entries(s.key, "broken")
    assert store.history.read(h.id) == b"---\nname: [\n---\n"


def test_invalid_files_untouched_by_other_commits(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    put_raw(store, s.key, "Bad Name.md", b"whatever")
    s = store.read_workspace(s.key)
    s2 = store.commit(s.key, [PutOp(record=rec("good"))], s.revision)
    assert s2.get("Bad Name") == s.get("Bad Name")
    assert "Bad Name" not in s2.index_text


def test_case_only_duplicate_put_is_refused(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    put_raw(store, s.key, "Tips.md", b"x")
    s = store.read_workspace(s.key)
    with pytest.raises(InvalidRecordError) as refused:
        store.commit(s.key, [PutOp(record=rec("tips"))], s.revision)
    assert refused.value.reason == "case-collision"
    # with another kind of problem in the batch the refusal is the general one
    with pytest.raises(InvalidRecordError) as mixed:
        store.commit(s.key, [PutOp(record=rec("tips")), PutOp(record=rec("tips"))], s.revision)
    assert mixed.value.reason == "invalid"


# --- history -----------------------------------------------------------------------------------


def test_history_lists_and_restores(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("fact", body="\nv1\n"))], s.revision)
    v1 = render_record(s.get("fact").record)  # type: ignore[arg-type, union-attr]
    s = store.commit(s.key, [PutOp(record=rec("fact", body="\nv2\n"))], s.revision)
    s = store.commit(s.key, [DeleteOp(name="fact")], s.revision)
    hist = store.history.entries(s.key, "fact")
    assert [h.reason for h in hist] == ["delete", "overwrite"]
    assert hist[0].cwd == CWD
    assert store.history.read(hist[1].id) == v1
    s = store.history.restore(hist[1].id, s.revision)
    assert render_record(s.get("fact").record) == v1  # type: ignore[arg-type, union-attr]
    with pytest.raises(ConflictError):
        store.history.restore(hist[0].id, EMPTY_REVISION)
    with pytest.raises(NotFoundError):
        store.history.read("nope/nothing")


def test_history_is_bounded(store: StoreCore, clock: object) -> None:
    s = store.create_workspace(CWD)
    for i in range(HISTORY_MAX_VERSIONS + 5):
        s = store.commit(s.key, [PutOp(record=rec("fact", body=f"\nv{i}\n"))], s.revision)
    assert len(store.history.entries(s.key, "fact")) == HISTORY_MAX_VERSIONS
    clock.advance(HISTORY_MAX_AGE + timedelta(days=1))  # type: ignore[attr-defined]
    assert store.history.entries(s.key, "fact") == []


# --- Recycle Bin -------------------------------------------------------------------------------


def test_archive_restore_purge(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("fact"))], s.revision)
    with pytest.raises(ConflictError):
        store.recycle.archive(s.key, EMPTY_REVISION)
    info = store.recycle.archive(s.key, s.revision)
    assert info.archived_at is not None and info.record_count == 1
    assert store.list_workspaces() == []
    assert [i.key for i in store.list_workspaces(archived=True)] == [s.key]
    assert store.find_workspace(CWD) is None
    archived = store.read_workspace(s.key, archived=True)
    assert archived.entries == s.entries and archived.revision == s.revision
    with pytest.raises(NotFoundError):
        store.commit(s.key, [PutOp(record=rec("x"))], None)
    restored = store.recycle.restore(s.key)
    assert restored.archived_at is None
    assert store.read_workspace(s.key) == s
    store.recycle.archive(s.key)
    with pytest.raises(ConfirmationRequiredError):
        store.recycle.purge(s.key, "proj alpha")
    assert store.list_workspaces(archived=True)
    store.recycle.purge(s.key, "Proj Alpha")
    assert store.list_workspaces(archived=True) == []
    with pytest.raises(NotFoundError):
        store.recycle.restore(s.key)


def test_purge_active_or_global_is_refused(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    with pytest.raises(UsageError):
        store.recycle.purge(s.key, "Proj Alpha")
    with pytest.raises(UsageError):
        store.recycle.purge("global", "global")
    assert store.read_workspace(s.key) == s


def test_restore_conflicts_with_new_active_scope(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    store.recycle.archive(s.key)
    store.create_workspace(CWD)
    with pytest.raises(ConflictError):
        store.recycle.restore(s.key)
    with pytest.raises(ConflictError):
        store.recycle.archive(s.key)


# --- app files ---------------------------------------------------------------------------------


def test_settings_cas(store: StoreCore) -> None:
    assert store.files(SETTINGS).read_revised() == (None, EMPTY_REVISION)
    rev = store.files(SETTINGS).replace("a: 1\n", EMPTY_REVISION)
    assert store.files(SETTINGS).read_revised() == ("a: 1\n", rev)
    with pytest.raises(ConflictError):
        store.files(SETTINGS).replace("a: 2\n", EMPTY_REVISION)
    assert store.files(SETTINGS).replace("a: 1\n", rev) == rev


def test_receipts_and_debug(store: StoreCore) -> None:
    assert store.files(RECEIPTS).list() == []
    store.files(RECEIPTS).write("rev-b", "B")
    store.files(RECEIPTS).write("rev-a", "A")
    store.files(RECEIPTS).write("rev-a", "A2")
    assert store.files(RECEIPTS).list() == ["rev-a", "rev-b"]
    assert store.files(RECEIPTS).read("rev-a") == "A2"
    assert store.files(RECEIPTS).read("missing") is None
    with pytest.raises(UsageError):
        store.files(RECEIPTS).write("../escape", "x")
    store.files(DEBUG_LOGS).append("rev-a/attempt-1", '{"a": 1}\n')
    store.files(DEBUG_LOGS).append("rev-a/attempt-1", '{"a": 2}\n')
    assert store.files(DEBUG_LOGS).list("rev-a") == ["rev-a/attempt-1"]
    with pytest.raises(UsageError):
        store.files(DEBUG_LOGS).append("rev-a/attempt--1", "x\n")
    assert store.files(DEBUG_LOGS).delete("rev-a/attempt-1")
    assert store.files(DEBUG_LOGS).list("rev-a") == []


ID_KINDS = [RECEIPTS, AGENT_PROPOSALS, REVIEW_STATES, STALE_MARKS]


@pytest.mark.parametrize("kind", ID_KINDS, ids=lambda k: k.name)
def test_every_internal_file_kind_is_served_by_one_door(store: StoreCore, kind: FileKind) -> None:
    """Each kind declared once (core/store/files.py): write, read, list, delete, its id rule and bound."""
    files = store.files(kind)
    item = workspace_key(CWD) if kind is STALE_MARKS else "rev-1"
    assert files.list() == [] and files.read(item) is None
    files.write(item, "one")
    files.write(item, "two")  # overwritten whole
    assert (files.read(item), files.list()) == ("two", [item])
    bad = NotFoundError if kind is STALE_MARKS else UsageError
    with pytest.raises(bad):
        files.write("../" + item, "x")  # nothing can name a file outside the kind's folder
    if kind.max_bytes is not None:
        with pytest.raises(UsageError) as over:
            files.write(item, "x" * (kind.max_bytes + 1))
        assert over.value.reason == "too-large" and files.read(item) == "two"  # nothing written
    with pytest.raises(UsageError):
        files.append(item, "x")  # only the debug logs are appended to
    assert files.delete(item) and not files.delete(item)
    assert files.list() == [] and files.read(item) is None


def test_settings_are_written_only_through_their_compare_and_swap(store: StoreCore) -> None:
    with pytest.raises(UsageError):
        store.files(SETTINGS).write("", "a: 1\n")
    with pytest.raises(UsageError):
        store.files(RECEIPTS).replace("a: 1\n", None)
    assert store.files(SETTINGS).read_revised() == (None, EMPTY_REVISION)
    assert store.files(SETTINGS).list() == []
    store.files(SETTINGS).replace("a: 1\n", None)
    assert store.files(SETTINGS).list() == [""]  # a single file's id is ""


def test_status_and_check(store: StoreCore) -> None:
    store.replace_global("hi\n", None)
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("fact"))], s.revision)
    st = store.status()
    assert (st.workspace_count, st.archived_count, st.global_size) == (1, 0, 3)
    assert st.total_bytes >= 3 + s.info.size_bytes
    assert store.inspect.check() == []
    put_raw(store, s.key, "bad.md", b"\xff\xfe")
    problems = store.inspect.check()
    assert [p.path for p in problems] == [f"workspaces/{s.key}/bad.md"]
    assert "UTF-8" in problems[0].reason


def test_status_reuses_a_counted_listing(store: StoreCore) -> None:
    """status(active=...) adds up the listing the caller just took: the same figures as a scan."""
    store.replace_global("hi\n", None)
    s = store.create_workspace(CWD)
    store.commit(s.key, [PutOp(record=rec("fact"))], s.revision)
    listing = store.list_workspaces()
    assert store.status(active=listing) == store.status()
    quick = store.list_workspaces(counts=False)
    assert [(i.key, i.cwd, i.display_name) for i in quick] == [(i.key, i.cwd, i.display_name) for i in listing]
    if not all(i.counted for i in quick):  # a store that skipped the counts must not be summed
        with pytest.raises(ValueError):
            store.status(active=quick)


def test_stale_index_reported_and_rebuilt(store: StoreCore) -> None:
    s = store.create_workspace(CWD)
    s = store.commit(s.key, [PutOp(record=rec("fact"))], s.revision)
    put_raw(store, s.key, "MEMORY.md", b"hand edited\n")
    assert any(p.path.endswith("MEMORY.md") for p in store.inspect.check())
    s = store.read_workspace(s.key)
    s = store.commit(s.key, [PutOp(record=rec("other"))], s.revision)
    assert s.index_text.encode() == render_index(s.records())


def test_fs_store_reopens_same_state(tmp_path: Path) -> None:
    a = FileStore(tmp_path / "m")
    s = a.create_workspace(CWD)
    s = a.commit(s.key, [PutOp(record=rec("fact"))], s.revision)
    b = FileStore(tmp_path / "m")
    assert b.read_workspace(s.key) == s


def test_backends_agree_byte_for_byte(tmp_path: Path) -> None:
    """The same operations give the same revisions, records and index on both backends."""
    from store_fakes import FakeClock

    def script(store: StoreCore) -> list[object]:
        out: list[object] = []
        s = store.create_workspace(CWD)
        s = store.commit(s.key, [PutOp(record=rec("b")), PutOp(record=rec("a", desc="中文 描述"))], s.revision)
        out += [s.revision, s.index_text]
        s = store.commit(s.key, [DeleteOp(name="b"), PutOp(record=rec("c", body="\nx\n"))], s.revision)
        out += [s.revision, s.index_text, [e.revision for e in s.entries]]
        out.append(store.replace_global("# G\n", None).revision)
        out.append([(h.name, h.reason, h.revision) for h in store.history.entries()])
        return out

    assert script(FileStore(tmp_path / "m", clock=FakeClock())) == script(InMemoryStore(clock=FakeClock()))
