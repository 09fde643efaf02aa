"""Record parsing, validation and rendering: unit cases plus Hypothesis round trips."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import InvalidRecordError
from core.models import RECORD_TYPES, Record
from core.records import (
    INDEX_HEADER,
    MAX_RECORD_BYTES,
    _parse_fast,
    _parse_yaml,
    _split_document,
    parse_record,
    render_index,
    render_record,
    validate_record,
)

CANONICAL = (
    b"---\nname: build-tips\ndescription: Use pnpm for builds\nmetadata:\n  type: project\n---\n\n"
    b"Always build with pnpm.\n\n**Why:** npm is slow here.\n\n**How to apply:** run `pnpm build`.\n"
)


def reasons_of(file_name: str, data: bytes) -> tuple[str, ...]:
    with pytest.raises(InvalidRecordError) as info:
        parse_record(file_name, data)
    return info.value.reasons


def test_canonical_file_round_trips() -> None:
    r = parse_record("build-tips.md", CANONICAL)
    assert (r.name, r.description, r.type, r.extra_frontmatter) == (
        "build-tips",
        "Use pnpm for builds",
        "project",
        "",
    )
    assert r.body.startswith("\nAlways")
    assert render_record(r) == CANONICAL


def test_unknown_keys_kept_verbatim() -> None:
    data = (
        b"---\nname: a\ndescription: d\nmetadata:\n  type: reference\n  source: 'chat #3'\n"
        b"tags:\n  - x   # why\n  - y\ncreated: 2026-11-30\n---\nbody"
    )
    r = parse_record("a.md", data)
    assert r.extra_frontmatter == "metadata:\n  source: 'chat #3'\ntags:\n  - x   # why\n  - y\ncreated: 2026-11-30\n"
    assert render_record(r) == data
    changed = render_record(r.model_copy(update={"description": "new: text"}))
    assert b"  source: 'chat #3'\n" in changed and b"tags:\n  - x   # why\n" in changed
    assert parse_record("a.md", changed).description == "new: text"


def test_body_edit_keeps_hand_written_frontmatter() -> None:
    hand = b"---\ndescription:   spaced\nname: h   # trailing comment\nmetadata: {type: feedback}\n---\nold"
    r = parse_record("h.md", hand)
    assert render_record(r.model_copy(update={"body": "new"}), base=hand) == hand[:-3] + b"new"


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"", "empty"),
        (b"no frontmatter", "does not start"),
        (b"---\nname: a\n", "not closed"),
        (b"---\nname: [\n---\n", "not valid YAML"),
        (b"---\n- a\n- b\n---\n", "not a mapping"),
        (b"---\ndescription: d\nmetadata:\n  type: project\n---\n", "no 'name'"),
        (b"---\nname: a\nmetadata:\n  type: project\n---\n", "no 'description'"),
        (b"---\nname: a\ndescription: d\n---\n", "metadata.type"),
        (b"---\nname: a\ndescription: d\ntype: project\n---\n", "top level"),
        (b"---\nname: a\ndescription: d\nmetadata:\n  type: idea\n---\n", "not one of"),
        (b"---\nname: a\ndescription: ''\nmetadata:\n  type: project\n---\n", "empty"),
        (b"---\nname: a\ndescription: |\n  x\n  y\nmetadata:\n  type: project\n---\n", "single line"),
        (b"---\nname: 123\ndescription: d\nmetadata:\n  type: project\n---\n", "not text"),
        (b"---\nname: b\ndescription: d\nmetadata:\n  type: project\n---\n", "does not match the file"),
        (b"\xef\xbb\xbf" + CANONICAL.replace(b"build-tips", b"a"), "BOM"),
        (CANONICAL.replace(b"build-tips", b"a").replace(b"\n", b"\r\n"), "CRLF"),
        (b"---\nname: a\x00\n---\n", "NUL"),
        (b"---\nname: \xff\n---\n", "UTF-8"),
        (b"x" * (MAX_RECORD_BYTES + 1), "KiB"),
        (b"---\nname: a\nname: a\ndescription: d\nmetadata:\n  type: project\n---\n", "more than once"),
    ],
)
def test_invalid_files_report_a_reason(data: bytes, needle: str) -> None:
    assert any(needle in r for r in reasons_of("a.md", data)), reasons_of("a.md", data)


def test_reserved_name_case_insensitive() -> None:
    data = b"---\nname: memory\ndescription: d\nmetadata:\n  type: project\n---\n"
    assert any("reserved" in r for r in reasons_of("memory.md", data))
    assert any("kebab" in r for r in reasons_of("MEMORY.md", data.replace(b"memory", b"MEMORY")))


def test_validate_record_rules() -> None:
    ok = Record(name="a-b", description="d", type="project", body="x")
    assert validate_record(ok, "a-b.md") == []
    assert validate_record(ok, "c.md")
    assert validate_record(ok.model_copy(update={"name": "a--b"}))
    assert validate_record(ok.model_copy(update={"body": "a\r\nb"}))
    assert validate_record(ok.model_copy(update={"extra_frontmatter": "name: x\n"}))
    assert validate_record(ok.model_copy(update={"extra_frontmatter": "metadata:\n  type: x\n"}))
    assert validate_record(ok.model_copy(update={"extra_frontmatter": "[unclosed\n"}))
    assert validate_record(ok.model_copy(update={"body": "x" * MAX_RECORD_BYTES}))


def test_index_is_sorted_and_deterministic() -> None:
    a = Record(name="b", description="second", type="project", body="")
    b = Record(name="a", description="第一", type="feedback", body="")
    assert render_index([a, b]) == render_index([b, a])
    assert render_index([a, b]).decode() == INDEX_HEADER + "\n- [a](a.md) — 第一\n- [b](b.md) — second\n"
    assert render_index([]).decode() == INDEX_HEADER


# --- property tests ----------------------------------------------------------------------------

names = st.from_regex(r"\A[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}\Z").filter(lambda n: n != "memory")
descriptions = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\ufeff\ufffe\uffff"),
    min_size=1,
    max_size=60,
).filter(lambda d: d.strip() != "")
bodies = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"), max_size=200
)
extra_keys = st.from_regex(r"\A[a-z][a-z_]{0,8}\Z").filter(lambda k: k not in ("name", "description", "metadata"))
extras = st.lists(st.tuples(extra_keys, st.integers(0, 1000)), max_size=3, unique_by=lambda t: t[0]).map(
    lambda kv: "".join(f"{k}: {v}\n" for k, v in kv)
)
meta_extras = st.lists(
    st.tuples(extra_keys.filter(lambda k: k != "type"), st.text("abc xyz", max_size=5)),
    max_size=2,
    unique_by=lambda t: t[0],
).map(lambda kv: "".join(f"  {k}: '{v}'\n" for k, v in kv))


@st.composite
def records(draw: st.DrawFn) -> Record:
    meta = draw(meta_extras)
    extra = (f"metadata:\n{meta}" if meta else "") + draw(extras)
    return Record(
        name=draw(names),
        description=draw(descriptions),
        type=draw(st.sampled_from(RECORD_TYPES)),
        body=draw(bodies),
        extra_frontmatter=extra,
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records())
def test_render_parse_round_trip(record: Record) -> None:
    assert validate_record(record, f"{record.name}.md") == []
    data = render_record(record)
    parsed = parse_record(f"{record.name}.md", data)
    assert parsed == record
    assert render_record(parsed) == data


@settings(max_examples=300, deadline=None)
@given(records())
def test_fast_path_agrees_with_yaml(record: Record) -> None:
    text = render_record(record).decode()
    split = _split_document(text)
    assert split is not None
    fm, body = split
    fast = _parse_fast(fm, body)
    slow = _parse_yaml(fm, body, [], f"{record.name}.md")
    assert slow == record
    if fast is not None:
        assert fast == slow
    loaded = yaml.safe_load(fm)
    assert loaded["name"] == record.name and loaded["description"] == record.description


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_parse_never_crashes(data: bytes) -> None:
    try:
        parse_record("x.md", data)
    except InvalidRecordError as exc:
        assert exc.reasons


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_parse_text_never_crashes(text: str) -> None:
    try:
        parse_record("x.md", ("---\n" + text).encode("utf-8", "surrogatepass"))
    except InvalidRecordError as exc:
        assert exc.reasons


# YAML-shaped noise: keys, indentation, flow syntax, anchors, tags, quotes, comments, dates.
_TOKENS = [
    "name: ", "description: ", "metadata:\n", "  type: ", "project", "feedback", "x", "a-b", "\n", ": ",
    "- ", "[", "]", "{", "}", ",", "'", '"', "#", "&a ", "*a", "!!str ", "!!binary ", "? ", "|\n  ",
    ">\n  ", "2026-13-45", "2026-11-30", "123", "yes", "null", "~", " ", "\t", "---\n", "...\n", "中文",
    "\\u0000", "%YAML 1.1\n", "<<: ", "\r\n",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=30), st.text(max_size=20))
def test_yaml_shaped_frontmatter_never_crashes(tokens: list[str], body: str) -> None:
    data = ("---\n" + "".join(tokens) + "\n---\n" + body).encode("utf-8", "surrogatepass")
    try:
        record = parse_record("x.md", data)
    except InvalidRecordError as exc:
        assert exc.reasons
        return
    # Whatever parsed must satisfy every rule and render back to something that parses the same.
    assert validate_record(record, "x.md") == []
    assert parse_record("x.md", render_record(record)) == record
