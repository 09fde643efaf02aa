"""Issue 25, findings 1 and 2: everything another program writes goes through one bounded door.

A decompression bomb, an oversized plain log and JSON nested far past any sane depth are reported
problems of the file (or the line) they are in; every other session, store and file reads on.
All of these fail on the code before issue 25 (MemoryError / unbounded read / RecursionError).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
import zstandard

from core import foreign
from core.foreign import ForeignDataError, ForeignReason, load_json
from core.sessions import SessionCatalog
from core.sessions.files import decode_zstd_frames
from tests.core.sessions.dsh_log_builders import conversation, jsonl, write_session

DEEP = 200_000


def _bomb(inflated: int) -> bytes:
    """One zstd frame of ``inflated`` zero bytes (a few hundred bytes on disk)."""
    cobj = zstandard.ZstdCompressor(level=3).compressobj()
    chunk = b"\0" * (1 << 20)
    out = [cobj.compress(chunk) for _ in range(inflated // len(chunk))]
    out.append(cobj.flush())
    return b"".join(out)


def _deep(depth: int = DEEP) -> str:
    return "[" * depth + "]" * depth


def test_a_zstd_bomb_is_listed_with_a_warning_and_the_other_sessions_read_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(foreign, "MAX_INFLATED_BYTES", 4 << 20)
    good = write_session(tmp_path, conversation(turns=1, session_id="good"), folder="good")
    head = jsonl(conversation(turns=1, session_id="bomb"))
    bomb_dir = tmp_path / "--home-ada-project--" / "bomb"
    bomb_dir.mkdir(parents=True)
    # A real session header, then a frame that expands past the budget.
    (bomb_dir / "session.jsonl.zstd").write_bytes(zstandard.ZstdCompressor().compress(head) + _bomb(16 << 20))
    catalog = SessionCatalog(sessions_root=tmp_path)
    listed = catalog.list()
    assert [s.folder for s in listed] == [str(good)]
    assert str(bomb_dir) in catalog.problems
    assert "decompresses to more than" in catalog.problems[str(bomb_dir)]


def test_the_output_budget_is_shared_by_every_frame_of_one_log(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(foreign, "MAX_INFLATED_BYTES", 3 << 20)
    frames = b"".join(zstandard.ZstdCompressor().compress(b"x" * (1 << 20)) for _ in range(5))
    with pytest.raises(ForeignDataError) as caught:
        decode_zstd_frames(frames)
    assert caught.value.reason is ForeignReason.INFLATES_TOO_LARGE
    text, warnings = decode_zstd_frames(frames[: len(frames) * 2 // 5])  # under the budget: all of it
    assert text == b"x" * (2 << 20) and warnings == []


def test_a_plain_log_over_its_size_cap_is_skipped_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(foreign, "MAX_LOG_BYTES", 64 << 10)
    good = write_session(tmp_path, conversation(turns=1, session_id="good"), folder="good")
    rows = conversation(turns=1, session_id="big")
    filler = b'{"type":"note","seq":99,"data":"' + b"y" * (80 << 10) + b'"}\n'
    big = write_session(tmp_path, jsonl(rows) + filler, folder="big")
    catalog = SessionCatalog(sessions_root=tmp_path)
    assert [s.folder for s in catalog.list()] == [str(good)]
    assert "over the limit" in catalog.problems[str(big)]


def test_one_deep_line_is_one_bad_line_not_a_broken_listing(tmp_path: Path) -> None:
    rows = jsonl(conversation(turns=2, session_id="deep"))
    first, rest = rows.split(b"\n", 1)
    deep_line = ('{"type":"user/message","seq":5,"time":1,"data":' + _deep() + "}").encode()
    folder = write_session(tmp_path, first + b"\n" + deep_line + b"\n" + rest, folder="deep")
    catalog = SessionCatalog(sessions_root=tmp_path)
    listed = catalog.list()
    assert [s.folder for s in listed] == [str(folder)]
    parsed = catalog.load(listed[0])
    assert any("1 line(s) were not JSON objects" in w for w in parsed.warnings)
    assert parsed.events  # the conversation around the bad line is all there


def test_a_deep_workspace_registry_is_ignored_like_a_broken_one(tmp_path: Path) -> None:
    from core.sessions.workspaces import read_registry

    (tmp_path / "storages").mkdir()
    (tmp_path / "storages" / "workspace.json").write_text(_deep())
    assert read_registry(tmp_path).titles == {}


def test_a_deep_cross_workspace_memory_json_is_a_reported_problem(tmp_path: Path) -> None:
    from core.sources.cross_workspace import read_cross_workspace

    path = tmp_path / "memory.json"
    path.write_text('{"entries": ' + _deep() + "}")
    found = read_cross_workspace(path)
    assert found.problems and "nested deeper" in found.problems[0].reason


def test_a_deep_zip_manifest_is_a_typed_import_error(tmp_path: Path) -> None:
    from core.import_zip import ImportZipError, read_export_zip

    path = tmp_path / "deep.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", '{"format": ' + _deep() + "}")
    with pytest.raises(ImportZipError) as caught:
        read_export_zip(path)
    assert caught.value.kind == "bad-manifest"


@pytest.mark.parametrize("depth", [300, 5000, DEEP])
def test_the_loader_turns_every_deep_nesting_into_its_typed_problem(depth: int) -> None:
    for text in (_deep(depth), '{"a":' * depth + "1" + "}" * depth):
        with pytest.raises(ForeignDataError) as caught:
            load_json(text)
        assert caught.value.reason is ForeignReason.TOO_DEEP
    # Brackets inside strings are no nesting: a wide, shallow value loads.
    assert load_json(json.dumps({"text": "[" * 10_000, "list": [[1]] * 1000}))["text"] == "[" * 10_000


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "memory.json"
    os.mkfifo(fifo)
    with pytest.raises(ForeignDataError) as caught:
        foreign.read_capped(fifo)
    assert caught.value.reason is ForeignReason.NOT_REGULAR
