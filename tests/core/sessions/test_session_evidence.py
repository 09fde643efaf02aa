"""Turn evidence: deterministic, provenance kept, no tool bodies, loud when over the limit."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from dsh_log_builders import (
    assistant,
    conversation,
    event,
    header,
    jsonl,
    plugin_context,
    tool_call,
    tool_result,
    user,
    write_session,
)

from core.errors import EvidenceTooLargeError
from core.sessions import (
    DEFAULT_EVIDENCE_LIMIT_BYTES,
    EvidenceLimitError,
    build_evidence,
    read_session_folder,
    render_evidence,
)


def test_rendered_text_is_exact(tmp_path: Path) -> None:
    rows = [
        header("s-9", cwd="/w/alpha"),
        plugin_context(0, "AGENTS.md: be terse"),
        user(1, "Remember: I prefer pytest over unittest."),
        assistant(2, "Noted.", version=1, tool_calls=[("c1", "memory_write")]),
        tool_call(3, "c1", "memory_write"),
        tool_result(4, "c1", version=1),
        event(5, "session/title", {"title": "Test preferences"}),
    ]
    parsed = read_session_folder(write_session(tmp_path, rows))
    evidence = build_evidence(parsed)
    text = render_evidence(evidence)
    assert text == (
        "DSH session evidence\n"
        "session: s-9\n"
        "title: Test preferences\n"
        "workspace: /w/alpha\n"
        f"revision: {parsed.summary.revision.token}\n"
        "turns: 1\n"
        "\n"
        "=== turn 1 ===\n"
        "[seq 1] user:\n"
        "Remember: I prefer pytest over unittest.\n"
        "\n"
        "[seq 2] assistant:\n"
        "Noted.\n"
        "\n"
        "[seq 3] tool memory_write: ok\n"
    )
    assert evidence.size_bytes == len(text.encode())
    assert evidence.all_seqs() == {1, 2, 3}
    assert evidence.seq_range == (1, 3)


def test_same_bytes_same_evidence_in_any_encoding(tmp_path: Path) -> None:
    rows = conversation(version=2, turns=4)
    folder = write_session(tmp_path / "a", rows)
    plain = build_evidence(read_session_folder(folder))
    again = build_evidence(read_session_folder(folder))  # a fresh read of the unchanged file
    zipped = build_evidence(read_session_folder(write_session(tmp_path / "b", rows, name="session.jsonl.zstd")))
    assert plain == again
    assert render_evidence(plain) == render_evidence(again)
    # the revision differs (another file), everything else is identical
    assert plain.model_copy(update={"session_revision": "x"}) == zipped.model_copy(update={"session_revision": "x"})
    digest = hashlib.sha256(render_evidence(plain).encode()).hexdigest()
    assert digest == hashlib.sha256(render_evidence(again).encode()).hexdigest()


def test_no_tool_bodies_reasoning_or_runtime_context(tmp_path: Path) -> None:
    text = render_evidence(build_evidence(read_session_folder(write_session(tmp_path, conversation(turns=3)))))
    for forbidden in ("TOOL-BODY", "TOOL-OUTPUT-BODY", "secret", "private thinking", "AGENTS.md", "NOISE"):
        assert forbidden not in text
    assert "tool bash: ok" in text and "tool bash: error" in text


def test_seqs_are_the_log_seqs(tmp_path: Path) -> None:
    rows = conversation(turns=2)
    evidence = build_evidence(read_session_folder(write_session(tmp_path, rows)))
    logged = {r["seq"]: r for r in rows[1:] if "seq" in r}
    for turn in evidence.turns:
        for message in turn.messages:
            assert logged[message.seq]["type"] in ("user/message", "assistant/message")
        for tool in turn.tools:
            assert logged[tool.seq]["type"] == "tool/call"


def test_rejected_and_cancelled_tools(tmp_path: Path) -> None:
    rows = [
        header(),
        user(0, "write outside the workspace"),
        tool_call(1, "c1", "bash"),
        event(2, "approval/asked", {"id": "ap1", "toolName": "bash", "callId": "c1"}),
        event(3, "approval/decided", {"id": "ap1", "outcome": "rejected"}),
        tool_result(4, "c1", version=1, is_error=True),
        tool_call(5, "c2", "wait"),
        tool_result(6, "c2", version=1, is_error=True, aborted=True),
        tool_call(7, "c3", "read"),  # never answered (crash)
        assistant(8, "I could not do it.", version=1),
    ]
    evidence = build_evidence(read_session_folder(write_session(tmp_path, rows)))
    assert [(t.name, t.outcome) for t in evidence.turns[0].tools] == [
        ("bash", "rejected"),
        ("wait", "cancelled"),
        ("read", "unknown"),
    ]


def test_assistant_before_the_first_prompt_is_turn_zero(tmp_path: Path) -> None:
    rows = [header(), assistant(0, "Welcome back.", version=1), user(1, "hi")]
    evidence = build_evidence(read_session_folder(write_session(tmp_path, rows)))
    assert [t.index for t in evidence.turns] == [0, 1]
    assert "=== before the first prompt ===" in render_evidence(evidence)


def test_over_the_limit_is_an_error_never_truncation(tmp_path: Path) -> None:
    rows = [header()] + [user(i, "x" * 1000) for i in range(50)]
    parsed = read_session_folder(write_session(tmp_path, rows))
    with pytest.raises(EvidenceTooLargeError) as caught:
        build_evidence(parsed, limit_bytes=10_000)
    error = caught.value
    assert isinstance(error, EvidenceLimitError)
    assert error.code == "evidence-too-large"
    assert error.limit_bytes == 10_000 and error.size_bytes > 50_000 and error.turns == 50
    assert "10,000 bytes" in error.message and "Raise the evidence size limit" in error.message
    assert error.to_json()["size_bytes"] == error.size_bytes
    exact = build_evidence(parsed, limit_bytes=error.size_bytes)  # the limit is inclusive
    assert exact.size_bytes == error.size_bytes
    assert len(exact.turns) == 50


def test_default_limit_fits_an_ordinary_session(tmp_path: Path) -> None:
    evidence = build_evidence(read_session_folder(write_session(tmp_path, conversation(turns=20))))
    assert evidence.size_bytes < DEFAULT_EVIDENCE_LIMIT_BYTES


def test_unicode_text_is_kept_and_sized_in_utf8(tmp_path: Path) -> None:
    rows = [header(), user(0, "记住：我喜欢用制表符。"), assistant(1, "好的，记住了。", version=1)]
    evidence = build_evidence(read_session_folder(write_session(tmp_path, rows)))
    text = render_evidence(evidence)
    assert "记住：我喜欢用制表符。" in text
    assert evidence.size_bytes == len(text.encode("utf-8")) > len(text)
    assert jsonl(rows)  # the builder writes UTF-8 as-is
