"""Reading session log bytes: multi-frame zstd, torn frames and lines, generation files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import zstandard
from dsh_log_builders import conversation, jsonl, write_session, zstd_frames
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.sessions import read_session_file, read_session_folder
from core.sessions.files import decode_zstd_frames, find_session_file, log_generation


def test_multi_frame_zstd_reads_across_every_frame(tmp_path: Path) -> None:
    rows = conversation(turns=6)
    folder = write_session(tmp_path, rows, name="session.jsonl.zstd", frames=8)
    data = (folder / "session.jsonl.zstd").read_bytes()
    # really several frames: a single-frame decoder stops after the first
    first = zstandard.ZstdDecompressor().decompressobj().decompress(data)
    assert len(first) < len(jsonl(rows))

    plain = write_session(tmp_path / "plain", rows)
    zipped = read_session_folder(folder)
    unzipped = read_session_folder(plain)
    assert zipped.events == unzipped.events
    assert zipped.warnings == ()
    assert zipped.summary.turns == 6


def test_frames_without_checksum_and_skippable_frames(tmp_path: Path) -> None:
    payload = jsonl(conversation(turns=2))
    skippable = (0x184D2A50).to_bytes(4, "little") + (5).to_bytes(4, "little") + b"hello"
    data = skippable + zstd_frames(payload, frames=3, checksum=False) + skippable
    text, warnings = decode_zstd_frames(data)
    assert text == payload
    assert warnings == []


def test_torn_final_frame_keeps_complete_lines(tmp_path: Path) -> None:
    rows = conversation(turns=4)
    folder = write_session(tmp_path, rows, name="session.jsonl.zstd", frames=4)
    log = folder / "session.jsonl.zstd"
    full = read_session_folder(folder)
    data = log.read_bytes()
    log.write_bytes(data[:-9])  # cut inside the last frame
    torn = read_session_folder(folder)
    assert any("torn final zstd frame" in w for w in torn.warnings)
    assert torn.summary.id == "s-1"
    assert 0 < len(torn.events) <= len(full.events)
    assert torn.events == full.events[: len(torn.events)]


def test_torn_frame_header_and_trailing_garbage(tmp_path: Path) -> None:
    payload = jsonl(conversation(turns=2))
    frames = zstd_frames(payload, frames=2)
    text, warnings = decode_zstd_frames(frames + frames[:3])
    assert text == payload and warnings
    text, warnings = decode_zstd_frames(frames + b"not zstd at all")
    assert text == payload
    assert "not a zstd frame" in warnings[0]


def test_damaged_block_inside_a_complete_frame_keeps_earlier_frames() -> None:
    payload = jsonl(conversation(turns=3))
    lines = payload.splitlines(keepends=True)
    compressor = zstandard.ZstdCompressor(write_checksum=True)
    first = compressor.compress(b"".join(lines[:5]))
    second = bytearray(compressor.compress(b"".join(lines[5:])))
    second[-6] ^= 0xFF  # corrupt content; the checksum no longer matches
    text, warnings = decode_zstd_frames(first + bytes(second))
    assert text == b"".join(lines[:5])
    assert "damaged" in warnings[0]


def test_torn_last_line_of_plain_jsonl(tmp_path: Path) -> None:
    payload = jsonl(conversation(turns=2))
    folder = write_session(tmp_path, payload + b'{"type":"user/message","seq":99,"da', folder="s-1")
    parsed = read_session_folder(folder)
    assert any("torn last line" in w for w in parsed.warnings)
    assert all(e.seq != 99 for e in parsed.events)
    assert parsed.summary.turns == 2


def test_garbage_lines_in_the_middle_are_skipped_with_a_warning(tmp_path: Path) -> None:
    lines = jsonl(conversation(turns=2)).splitlines(keepends=True)
    payload = b"".join([*lines[:3], b"{broken\n", b"[1, 2]\n", *lines[3:]])
    parsed = read_session_folder(write_session(tmp_path, payload, folder="x"))
    assert parsed.summary.turns == 2
    assert any("2 line(s)" in w for w in parsed.warnings)


def test_generation_files_highest_wins(tmp_path: Path) -> None:
    folder = write_session(tmp_path, conversation(turns=1, session_id="g"), folder="g")
    write_session(tmp_path, conversation(2, turns=2, session_id="g"), folder="g", name="session.v2.jsonl.zstd")
    write_session(tmp_path, conversation(10, turns=3, session_id="g"), folder="g", name="session.v10.jsonl")
    write_session(tmp_path, conversation(9, turns=4, session_id="g"), folder="g", name="session.v9.jsonl.zstd")
    (folder / "session.lock").write_text("not a log")
    (folder / "session.v11.jsonl.bak").write_text("not a log either")
    found = find_session_file(folder)
    assert found is not None
    assert found.path.name == "session.v10.jsonl"
    assert found.generation == 10 and not found.compressed and found.warnings == ()
    assert read_session_folder(folder).summary.turns == 3


def test_same_generation_prefers_compressed_whatever_the_mtimes(tmp_path: Path) -> None:
    folder = write_session(tmp_path, conversation(turns=1, session_id="g"), folder="g")
    write_session(tmp_path, conversation(turns=2, session_id="g"), folder="g", name="session.jsonl.zstd")
    for newer, older in (("session.jsonl", "session.jsonl.zstd"), ("session.jsonl.zstd", "session.jsonl")):
        os.utime(folder / newer, ns=(2_000_000_000_000_000_000, 2_000_000_000_000_000_000))
        os.utime(folder / older, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
        found = find_session_file(folder)
        assert found is not None and found.path.name == "session.jsonl.zstd"
        assert any("both session.jsonl and session.jsonl.zstd exist" in w for w in found.warnings)
    summary = read_session_folder(folder).summary
    assert summary.turns == 2 and any("both session.jsonl" in w for w in summary.warnings)


def test_log_generation_names() -> None:
    assert log_generation("session.jsonl") == (0, False)
    assert log_generation("session.jsonl.zstd") == (0, True)
    assert log_generation("session.v3.jsonl") == (3, False)
    assert log_generation("session.v12.jsonl.zstd") == (12, True)
    for name in ("session.lock", "session.1.jsonl", "session.jsonl.tmp", "seed.jsonl", "session.vX.jsonl"):
        assert log_generation(name) is None


def test_empty_and_headerless_files_are_read_errors(tmp_path: Path) -> None:

    from core.errors import SessionReadError

    empty = tmp_path / "session.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(SessionReadError) as caught:
        read_session_file(empty)
    assert caught.value.reason == "empty"
    empty.write_bytes(b'{"type":"user/message","seq":0}\n')
    with pytest.raises(SessionReadError) as caught:
        read_session_file(empty)
    assert caught.value.reason == "no-header"
    with pytest.raises(SessionReadError) as caught:
        read_session_file(tmp_path / "missing.jsonl")
    assert caught.value.reason == "unreadable"


_PAYLOAD = jsonl(conversation(turns=5))
_ZSTD = zstd_frames(_PAYLOAD, frames=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(min_value=0, max_value=len(_ZSTD)))
def test_any_truncation_of_a_zstd_log_decodes_to_a_prefix(cut: int) -> None:
    text, _ = decode_zstd_frames(_ZSTD[:cut])
    assert _PAYLOAD.startswith(text)


@settings(max_examples=40, deadline=None)
@given(noise=st.binary(max_size=64), cut=st.integers(min_value=0, max_value=len(_ZSTD)))
def test_arbitrary_tails_never_raise(noise: bytes, cut: int) -> None:
    text, _ = decode_zstd_frames(_ZSTD[:cut] + noise)
    assert isinstance(text, bytes)


def test_an_append_during_the_read_is_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    from core.sessions import files

    folder = write_session(tmp_path, conversation(turns=1))
    log = folder / "session.jsonl"
    real_open = builtins.open
    appended: list[int] = []

    def open_and_append(path: object, mode: str = "r", *args: object, **kwargs: object) -> object:
        if not appended:  # a DSH append lands between our stat and our read
            appended.append(1)
            with real_open(log, "ab") as writer:
                writer.write(b'{"type":"user/message","seq":900,"time":1,"data":{}}\n')
        return real_open(path, mode, *args, **kwargs)  # type: ignore[call-overload]

    from core import foreign  # the bounded door does the reading

    monkeypatch.setattr(foreign, "open", open_and_append, raising=False)
    data, revision = files.read_stable_bytes(log)
    assert appended == [1]
    assert len(data) == revision.size == log.stat().st_size
    assert data.endswith(b'"seq":900,"time":1,"data":{}}\n')


def test_frame_walker_handles_multi_block_raw_and_rle_frames() -> None:
    import random

    rng = random.Random(7)
    incompressible = bytes(rng.getrandbits(8) for _ in range(300_000))  # raw blocks
    runs = b"a" * 400_000  # RLE blocks
    mixed = b"".join(f'{{"line": {i}, "text": "{rng.random()}"}}\n'.encode() for i in range(20_000))
    for level in (1, 19):
        compressor = zstandard.ZstdCompressor(level=level, write_checksum=True)
        frames = [compressor.compress(part) for part in (incompressible, runs, mixed)]
        # and one streamed frame without a content size in its header
        streamed = compressor.compressobj()
        frames.append(streamed.compress(mixed[:100_000]) + streamed.flush())
        data = b"".join(frames)
        text, warnings = decode_zstd_frames(data)
        assert warnings == []
        assert text == incompressible + runs + mixed + mixed[:100_000]
        text, warnings = decode_zstd_frames(data[:-1])
        assert len(warnings) == 1 and "torn final zstd frame" in warnings[0]
        assert (incompressible + runs + mixed).startswith(text[: len(incompressible + runs + mixed)])


def test_a_torn_frame_followed_by_more_appends_is_skipped_not_the_rest() -> None:
    # DSH crashed in the middle of an append, then reopened the log and appended more batches.
    payload = jsonl(conversation(turns=4))
    lines = payload.splitlines(keepends=True)
    compressor = zstandard.ZstdCompressor(write_checksum=True)
    before = compressor.compress(b"".join(lines[:6]))
    torn = compressor.compress(b"".join(lines[6:9]))[:-12]
    after = compressor.compress(b"".join(lines[9:]))
    text, warnings = decode_zstd_frames(before + torn + after)
    assert text.startswith(b"".join(lines[:6])) and text.endswith(b"".join(lines[9:]))
    assert all(line in lines for line in text.splitlines(keepends=True))  # no glued or partial line
    assert len(warnings) == 1 and "damaged zstd data" in warnings[0]


def test_a_damaged_frame_in_the_middle_is_dropped_and_the_rest_kept() -> None:
    payload = jsonl(conversation(turns=3))
    lines = payload.splitlines(keepends=True)
    compressor = zstandard.ZstdCompressor(write_checksum=True)
    first = compressor.compress(b"".join(lines[:5]))
    second = bytearray(compressor.compress(b"".join(lines[5:8])))
    second[-6] ^= 0xFF
    third = compressor.compress(b"".join(lines[8:]))
    text, warnings = decode_zstd_frames(first + bytes(second) + third)
    assert text == b"".join(lines[:5]) + b"".join(lines[8:])
    assert "damaged" in warnings[0]


_GROUPS = [b"".join(_PAYLOAD.splitlines(keepends=True)[i : i + 7]) for i in range(0, 42, 7)]
_FRAMES = [zstandard.ZstdCompressor(write_checksum=True).compress(g) for g in _GROUPS]


@settings(max_examples=80, deadline=None)
@given(torn=st.integers(min_value=0, max_value=len(_FRAMES) - 2), cut=st.integers(min_value=1, max_value=60))
def test_a_torn_middle_frame_loses_only_its_own_torn_line(torn: int, cut: int) -> None:
    frames = list(_FRAMES)
    frames[torn] = frames[torn][: max(0, len(frames[torn]) - cut)]
    text, warnings = decode_zstd_frames(b"".join(frames))
    before, after = b"".join(_GROUPS[:torn]), b"".join(_GROUPS[torn + 1 :])
    assert text.startswith(before) and text.endswith(after)
    middle = text[len(before) : len(text) - len(after)]
    assert _GROUPS[torn].startswith(middle) and (middle == b"" or middle.endswith(b"\n"))
    assert warnings
