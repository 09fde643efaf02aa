"""Header and events across format versions 0-4: prompts, titles, sub-agents, skipped rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from dsh_log_builders import (
    T0,
    assistant,
    conversation,
    event,
    header,
    plugin_context,
    title,
    tool_call,
    tool_result,
    user,
    write_session,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import keys
from core.sessions import build_evidence, read_session_folder, render_evidence
from core.sessions.parse import UNTITLED


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_every_version_yields_the_same_conversation(tmp_path: Path, version: int) -> None:
    folder = write_session(tmp_path, conversation(version=version, turns=3), name="session.jsonl.zstd")
    parsed = read_session_folder(folder)
    assert parsed.summary.version == version
    assert parsed.summary.turns == 3
    assert parsed.summary.title == "Tabs preference"
    evidence = build_evidence(parsed)
    user_texts = [m.text for t in evidence.turns for m in t.messages if m.role == "user"]
    assistant_texts = [m.text for t in evidence.turns for m in t.messages if m.role == "assistant"]
    assert user_texts == [f"Prompt number {n}: please remember I prefer tabs." for n in (1, 2, 3)]
    assert assistant_texts == ["Answer 1: noted.", "Answer 2: noted.", "Answer 3: noted."]
    outcomes = [(u.name, u.outcome) for t in evidence.turns for u in t.tools]
    assert outcomes == [("bash", "ok"), ("bash", "error"), ("bash", "ok")]
    assert [t.index for t in evidence.turns] == [1, 2, 3]


def test_chunks_and_unknown_events_are_skipped(tmp_path: Path) -> None:
    parsed = read_session_folder(write_session(tmp_path, conversation(turns=2)))
    types = {e.type for e in parsed.events}
    assert "assistant/chunk" not in types
    assert not any(t.endswith("-chunks") for t in types)
    assert not any(t.startswith("future/") for t in types)  # unknown types are skipped
    text = "".join(m.text for t in build_evidence(parsed).turns for m in t.messages)
    assert "NOISE" not in text and "whatever" not in text


def test_title_is_the_last_session_title(tmp_path: Path) -> None:
    rows = [
        header(),
        user(0, "first prompt"),
        title(1, "Early title"),
        title(2, "Late   title"),
        title(3, ""),
    ]
    assert read_session_folder(write_session(tmp_path, rows)).summary.title == "Late title"


def test_title_falls_back_to_the_first_human_prompt(tmp_path: Path) -> None:
    long_prompt = "Please refactor the session reader " + "and keep going " * 20
    rows = [header(), plugin_context(0, "runtime context"), user(1, long_prompt), user(2, "second")]
    summary = read_session_folder(write_session(tmp_path, rows)).summary
    assert summary.title.startswith("Please refactor the session reader")
    assert summary.title.endswith("…") and len(summary.title) == 80
    empty = read_session_folder(write_session(tmp_path, [header("e")], folder="e")).summary
    assert empty.title == UNTITLED and empty.turns == 0


def test_plugin_and_other_machine_sources_are_not_prompts(tmp_path: Path) -> None:
    rows = [header()]
    for seq, kind in enumerate(
        [
            "plugin",
            "agent-instructions",
            "goal",
            "subagent-settled",
            "subagent-report",
            "coordinator",
            "skill-catalog",
        ]
    ):
        rows.append(plugin_context(seq, f"machine text {kind}", kind=kind))
    rows.append(plugin_context(20, "v3 extension text", version=3))
    rows.append(user(21, "the only human prompt"))
    parsed = read_session_folder(write_session(tmp_path, rows))
    assert parsed.summary.turns == 1
    evidence = build_evidence(parsed)
    assert [m.text for t in evidence.turns for m in t.messages] == ["the only human prompt"]


def test_v4_tool_role_message_is_a_result_not_a_prompt(tmp_path: Path) -> None:
    rows = [
        header(version=4),
        user(0, "run it", version=4),
        tool_call(1, "c1", "bash"),
        tool_result(2, "c1", version=4, aborted=True),
        # a tool-role message carrying a user-looking source is still a tool result
        event(3, "user/message", {"message": {"role": "tool", "toolCallId": "c2", "source": {"kind": "user"}}}),
    ]
    evidence = build_evidence(read_session_folder(write_session(tmp_path, rows)))
    assert [(u.name, u.outcome, u.seq) for u in evidence.turns[0].tools] == [
        ("bash", "cancelled", 1),
        ("tool", "unknown", 3),
    ]
    assert [m.text for m in evidence.turns[0].messages] == ["run it"]


def test_subagent_headers(tmp_path: Path) -> None:
    by_origin = read_session_folder(write_session(tmp_path, [header("a", origin="subagent", depth=None)]))
    by_depth = read_session_folder(write_session(tmp_path, [header("b", depth=2)], folder="b"))
    top = read_session_folder(write_session(tmp_path, [header("c", depth=0)], folder="c"))
    assert by_origin.summary.is_subagent and by_depth.summary.is_subagent
    assert not top.summary.is_subagent


def test_header_fields_map_to_the_summary(tmp_path: Path) -> None:
    folder = write_session(tmp_path, conversation(turns=1, cwd="/srv/work/Alpha"))
    summary = read_session_folder(folder).summary
    assert summary.cwd == "/srv/work/Alpha"
    assert summary.workspace_key == keys.workspace_key("/srv/work/Alpha")
    assert summary.created is not None and summary.created.timestamp() == T0 / 1000
    assert summary.updated is not None and summary.updated > summary.created
    assert summary.size == (folder / "session.jsonl").stat().st_size
    assert summary.folder == str(folder)
    assert summary.revision.path == str(folder / "session.jsonl")


def test_a_relative_cwd_is_unassigned_but_kept_for_display(tmp_path: Path) -> None:
    for n, cwd in enumerate(["{{cwd}}/workspace", ".", "project"]):
        summary = read_session_folder(write_session(tmp_path, [header(f"r{n}", cwd=cwd)], folder=f"r{n}")).summary
        assert summary.cwd == cwd
        assert summary.workspace_key is None


def test_no_cwd_blank_cwd_and_missing_id(tmp_path: Path) -> None:
    no_cwd = read_session_folder(write_session(tmp_path, [header("n", cwd=None)], folder="n")).summary
    blank = read_session_folder(write_session(tmp_path, [header("b", cwd="  ")], folder="b")).summary
    assert no_cwd.cwd is None and no_cwd.workspace_key is None
    assert blank.cwd is None
    rows = [{"type": "session", "version": "2", "createdAt": "2026-11-01T10:00:00Z"}]
    odd = read_session_folder(write_session(tmp_path, rows, folder="id%3Awith%2Fslash")).summary
    assert odd.id == "id:with/slash"
    assert odd.version == 2
    assert odd.created is not None and odd.created.isoformat() == "2026-11-01T10:00:00+00:00"


def test_seeded_prefix_of_a_forked_session_is_not_its_own(tmp_path: Path) -> None:
    rows = [
        header("child", origin="subagent", depth=1, seedLength=2),
        user(0, "parent's prompt"),
        assistant(1, "parent's answer", version=1),
        event(2, "session/end-seed", {}),
        user(3, "child task"),
        assistant(4, "child answer", version=1),
    ]
    parsed = read_session_folder(write_session(tmp_path, rows))
    assert parsed.summary.turns == 1
    assert parsed.summary.title == "child task"
    texts = [m.text for t in build_evidence(parsed).turns for m in t.messages]
    assert texts == ["child task", "child answer"]


def test_legacy_string_content_and_crlf_are_normalized(tmp_path: Path) -> None:
    rows = [
        header(),
        event(0, "user/message", {"content": "line one\r\nline two\r\n\r\n", "source": "user"}),
        event(1, "assistant/message", {"content": [{"type": "text", "text": "\n\nanswer  \n"}]}),
    ]
    evidence = build_evidence(read_session_folder(write_session(tmp_path, rows)))
    assert [m.text for m in evidence.turns[0].messages] == ["line one\nline two", "answer"]


def test_odd_shapes_never_fail(tmp_path: Path) -> None:
    rows = [
        header(),
        {"type": "user/message", "seq": "7", "data": {}},  # non-int seq
        {"type": 5, "seq": 1},
        {"seq": 2, "data": None},
        event(3, "user/message", {"message": "not a dict", "content": None}),
        event(4, "assistant/message", {"message": {"content": [None, 3, {"type": "image"}]}}),
        event(5, "tool/result", {}),
        event(6, "session/title", {"title": 42}),
        event(7, "approval/decided", {"id": "nope", "outcome": "rejected"}),
    ]
    parsed = read_session_folder(write_session(tmp_path, rows))
    evidence = build_evidence(parsed)
    assert parsed.summary.turns == 0
    assert [t.index for t in evidence.turns] == [0]  # the orphan tool result, before any prompt
    assert evidence.turns[0].tools[0].outcome == "unknown"


def _both(tmp_path: Path, payload: bytes, folder: str = "x") -> tuple[object, object]:
    from core.sessions.files import read_log_text
    from core.sessions.parse import parse_session, summarize_session

    target = write_session(tmp_path, payload, folder=folder)
    text, revision, warnings = read_log_text(target / "session.jsonl")
    return parse_session(text, revision, target, warnings).summary, summarize_session(text, revision, target)


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_listing_summary_equals_full_parse_summary(tmp_path: Path, version: int) -> None:
    import json

    rows = conversation(version=version, turns=3)
    compact = b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in rows)
    full, fast = _both(tmp_path, compact, "compact")
    assert full == fast
    spaced = b"".join(json.dumps(r).encode() + b"\n" for r in rows)
    full, fast = _both(tmp_path, spaced, "spaced")
    assert full == fast
    # a torn last line whose prefix looks like a complete event does not move "updated"
    torn = compact + b'{"type":"step/end","seq":999,"time":9999999999999,"data":{"turn'
    full, fast = _both(tmp_path, torn, "torn")
    assert full == fast


def test_attachment_only_prompt_is_still_a_turn(tmp_path: Path) -> None:
    rows = [
        header(),
        event(
            0,
            "user/message",
            {"content": [{"type": "image", "mediaType": "image/png"}], "source": {"kind": "user"}},
        ),
        assistant(1, "Nice picture.", version=1),
    ]
    parsed = read_session_folder(write_session(tmp_path, rows))
    assert parsed.summary.turns == 1
    assert parsed.summary.title == UNTITLED
    evidence = build_evidence(parsed)
    assert [m.text for m in evidence.turns[0].messages] == [
        "[a prompt with attachments only, no text]",
        "Nice picture.",
    ]


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["", "user", "tool", "text", "c1", "x"]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "message",
                    "content",
                    "source",
                    "kind",
                    "type",
                    "role",
                    "text",
                    "callId",
                    "toolCallId",
                    "isError",
                    "status",
                    "error",
                    "code",
                    "id",
                    "name",
                    "title",
                    "outcome",
                ]
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)
_types = st.sampled_from(
    [
        "user/message",
        "assistant/message",
        "message",
        "tool/call",
        "tool/result",
        "session/title",
        "session/end-seed",
        "approval/asked",
        "approval/decided",
        "assistant/chunk",
        "text-chunks",
        "step/start",
        "zzz",
    ]
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(
        st.tuples(
            _types,
            st.integers(0, 40),
            _json | st.dictionaries(st.sampled_from(["message", "content", "source"]), _json),
        ),
        max_size=25,
    ),
    junk=st.lists(st.binary(max_size=20), max_size=3),
)
def test_arbitrary_event_shapes_never_fail(
    tmp_path: Path, rows: list[tuple[str, int, object]], junk: list[bytes]
) -> None:
    import json

    from core.sessions.files import read_log_text
    from core.sessions.parse import parse_session, summarize_session

    lines = [json.dumps(header()).encode()]
    lines += [json.dumps({"type": t, "seq": s, "time": T0 + s, "data": d}).encode() for t, s, d in rows]
    lines += [j.replace(b"\n", b" ") for j in junk]
    folder = tmp_path / "prop"
    folder.mkdir(exist_ok=True)
    (folder / "session.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    text, revision, warnings = read_log_text(folder / "session.jsonl")
    parsed = parse_session(text, revision, folder, warnings)
    assert summarize_session(text, revision, folder, warnings) == parsed.summary
    evidence = build_evidence(parsed, limit_bytes=10**9)
    assert evidence.size_bytes == len(render_evidence(evidence).encode())
    assert sum(1 for t in evidence.turns if t.index > 0) == parsed.summary.turns
