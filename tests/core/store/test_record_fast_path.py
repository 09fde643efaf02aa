"""The record parser's fast path (the canonical layout, read without YAML) never changes a verdict.

A cold open parses every record, so ``core.records`` reads the layout this app writes line by line
and hands anything else to PyYAML. Here files in (or close to) that layout, with the values a
person may write by hand, are parsed twice: as the store does, and with the fast path switched off
(everything through YAML). The record, or the list of reasons it is invalid, must be the same.
Then the same files go through a real FileStore: the reasons a user sees are the parser's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import records
from core.errors import InvalidRecordError
from core.models import Record
from core.records import parse_record
from core.store.base import _may_have_aliases, entry_from_bytes, frontmatter_text
from core.store.fs import FileStore

# Scalars YAML reads as something other than the same plain string (bools, nulls, numbers, dates,
# tags, aliases, flow collections, comments), quoted forms, and ordinary words.
_ODD = [
    "build-tips",
    "no",
    "yes",
    "on",
    "off",
    "true",
    "False",
    "null",
    "~",
    "",
    "123",
    "0x1f",
    "1e3",
    ".5",
    "-x",
    "+1",
    "2026-11-30",
    "2026-13-45",
    "=",
    "<<",
    "!!str x",
    "&a x",
    "*a",
    "[a]",
    "{a: b}",
    "a # c",
    "a: b",
    "'quoted'",
    "'it''s'",
    '"double"',
    '"esc\\u00e9"',
    '"tab\\t"',
    '"bad \\q"',
    '"unterminated',
    "'half",
    "project",
    "feedback",
    "reference",
    "Project",
    '"project"',
    "'feedback'",
    "project # why",
    "中文描述",
    "Use pnpm for builds",
    " leading",
    "trailing ",
    "x\u2028y",
    "caf\u00e9",
    "a\tb",
    "|",
    ">",
    "%x",
    "@x",
]
_VALUES = st.one_of(st.sampled_from(_ODD), st.text(max_size=12).filter(lambda t: "\n" not in t and "\r" not in t))


def verdict(file_name: str, data: bytes) -> Record | tuple[str, ...]:
    try:
        return parse_record(file_name, data)
    except InvalidRecordError as exc:
        return exc.reasons


def verdict_without_fast_path(file_name: str, data: bytes, monkeypatch: pytest.MonkeyPatch) -> Record | tuple[str, ...]:
    with monkeypatch.context() as m:
        m.setattr(records, "_parse_fast", lambda fm, body: None)
        return verdict(file_name, data)


def canonical(name: str, description: str, type_: str, body: str = "\nBody.\n") -> bytes:
    text = f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: {type_}\n---\n{body}"
    return text.encode("utf-8", "surrogatepass")


@settings(max_examples=500, deadline=None)
@given(_VALUES, _VALUES, _VALUES)
def test_fast_path_gives_the_yaml_verdict(name: str, description: str, type_: str) -> None:
    data = canonical(name, description, type_)
    mp = pytest.MonkeyPatch()
    try:
        assert verdict("build-tips.md", data) == verdict_without_fast_path("build-tips.md", data, mp)
    finally:
        mp.undo()


ODD_FILES = {
    "plain": canonical("build-tips", "Use pnpm for builds", "project"),
    "yaml word name": canonical("no", "d", "project"),
    "date name": canonical("2026-11-30", "d", "project"),
    "number name": canonical("123", "d", "feedback"),
    "quoted type": canonical("build-tips", "d", '"reference"'),
    "single-quoted description": canonical("build-tips", "'it''s fine'", "project"),
    "escaped description": canonical("build-tips", '"caf\\u00e9: ok"', "project"),
    "bad escape": canonical("build-tips", '"bad \\q"', "project"),
    "unknown type": canonical("build-tips", "d", "Project"),
    "commented type": canonical("build-tips", "d", "project # why"),
    "empty description": canonical("build-tips", "''", "project"),
    "multi-line description": (
        b"---\nname: build-tips\ndescription: first line\n  continued here\nmetadata:\n  type: project\n---\nB\n"
    ),
    "block scalar description": (
        b"---\nname: build-tips\ndescription: |\n  two\n  lines\nmetadata:\n  type: project\n---\n"
    ),
    "duplicate name": b"---\nname: build-tips\nname: other\ndescription: d\nmetadata:\n  type: project\n---\n",
    "duplicate type": b"---\nname: build-tips\ndescription: d\nmetadata:\n  type: project\n  type: feedback\n---\n",
    "crlf": canonical("build-tips", "d", "project").replace(b"\n", b"\r\n"),
    "bom": b"\xef\xbb\xbf" + canonical("build-tips", "d", "project"),
    "not utf-8": canonical("build-tips", "caf\xe9", "project").replace("é".encode(), b"\xe9"),
    "tab indent": b"---\nname: build-tips\ndescription: d\nmetadata:\n\ttype: project\n---\n",
    "extra key": b"---\nname: build-tips\ndescription: d\nmetadata:\n  type: project\nsource: me\n---\n",
    "alias": b"---\nname: &n build-tips\ndescription: *n\nmetadata:\n  type: project\n---\n",
}


@pytest.mark.parametrize("label", sorted(ODD_FILES))
def test_odd_files_get_the_same_verdict_either_way(label: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = ODD_FILES[label]
    assert verdict("build-tips.md", data) == verdict_without_fast_path("build-tips.md", data, monkeypatch)


def test_the_store_reports_odd_files_with_the_parsers_reasons(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    store = FileStore(tmp_path / "memory")
    key = store.create_workspace(str(tmp_path / "project")).key
    folder = tmp_path / "memory" / "workspaces" / key
    for i, label in enumerate(sorted(ODD_FILES)):
        (folder / f"odd-{i}.md").write_bytes(ODD_FILES[label].replace(b"build-tips", f"odd-{i}".encode()))
    snap = FileStore(tmp_path / "memory").read_workspace(key)
    by_file = {e.file_name: e for e in snap.entries}
    for i, label in enumerate(sorted(ODD_FILES)):
        data = (folder / f"odd-{i}.md").read_bytes()
        entry = by_file[f"odd-{i}.md"]
        expected = verdict_without_fast_path(f"odd-{i}.md", data, monkeypatch)
        if label == "alias":  # never handed to YAML at all (an alias bomb would hang the lock)
            assert entry.record is None and "anchors or aliases" in entry.invalid_reasons[0], label
        elif isinstance(expected, Record):
            assert entry.is_valid and entry.record == expected, label
        else:
            assert entry.record is None and entry.invalid_reasons == expected, label
    valid = {e.file_name for e in snap.entries if e.is_valid}
    # (A repeated metadata.type is read as YAML reads it, the last one; both paths agree on that.)
    for label in (
        "crlf",
        "bom",
        "not utf-8",
        "duplicate name",
        "bad escape",
        "unknown type",
        "block scalar description",
    ):
        assert f"odd-{sorted(ODD_FILES).index(label)}.md" not in valid, label


_BYTES = st.lists(
    st.sampled_from(
        [b"---", b"\n---\n", b"\n", b"-", b"&a ", b"*a", b"**bold**", b"a", b"\xe4\xb8\xad", b"\xe4", b"\xff"]
    ),
    max_size=20,
).map(b"".join)


@settings(max_examples=500, deadline=None)
@given(_BYTES)
def test_alias_precheck_on_bytes_matches_the_decoded_frontmatter(data: bytes) -> None:
    """The cheap check on bytes says "maybe" exactly when the decoded frontmatter has & or *."""
    front = frontmatter_text(data)
    head = data[:65536]
    decoded = (b"&" in head or b"*" in head) and ("&" in front or "*" in front)
    assert _may_have_aliases(data) == decoded


def test_an_alias_in_frontmatter_is_still_refused_with_bold_in_the_body() -> None:
    data = b"---\nname: &n build-tips\ndescription: *n\nmetadata:\n  type: project\n---\n**Why:** x\n"
    entry = entry_from_bytes("build-tips.md", data)
    assert entry.record is None and "anchors or aliases" in entry.invalid_reasons[0]
    plain = entry_from_bytes("build-tips.md", canonical("build-tips", "d", "project", "\n**Why:** a & b\n"))
    assert plain.is_valid
