"""Record-text helpers (core.records), size/time/problem words (core.display) and diffs (core.textdiff)."""

from __future__ import annotations

from core.display import format_size, workspace_problems
from core.models import WorkspaceInfo
from core.records import find_links, salvage_fields
from core.textdiff import unified_diff


def test_find_links_in_order_each_once() -> None:
    assert find_links("See [[b]] and [[a]], again [[ b ]].\n[[not\nalink]]") == ["b", "a"]


def test_salvage_fields_keeps_what_parses() -> None:
    text = "---\nname: Broken Name\ndescription: '  two\n  lines '\nmetadata:\n  type: feedback\n---\nbody\n"
    assert salvage_fields(text) == ("feedback", "two lines", "\nbody\n")
    assert salvage_fields("no frontmatter\n") == ("project", "", "no frontmatter\n")
    broken = "---\n: [unclosed\n---\nbody\n"
    assert salvage_fields(broken) == ("project", "", broken)  # nothing lost
    assert salvage_fields("---\ntype: nonsense\n---\n\nx\n") == ("project", "", "\nx\n")


def test_format_size() -> None:
    assert [format_size(n) for n in (0, 1023, 1536, 3 * 1024 * 1024)] == ["0 B", "1023 B", "1.5 KB", "3.0 MB"]


def test_workspace_problems_long_and_short() -> None:
    info = WorkspaceInfo(key="a-1", cwd="/gone", cwd_exists=False, invalid_count=2, scope_problem="bad scope.json")
    assert workspace_problems(info) == ["folder missing", "2 invalid files", "bad scope.json"]
    assert workspace_problems(info, short=True) == ["folder missing", "2 invalid"]
    assert workspace_problems(WorkspaceInfo(key="b-2", cwd="/p")) == []


def test_unified_diff() -> None:
    assert unified_diff("same\n", "same\n", "a") == ""
    out = unified_diff("a\nb", "a\nc\n", "a/x.md", "b/x.md")
    assert out.startswith("--- a/x.md\n+++ b/x.md\n")
    assert "-b\n\\ No newline at end of file\n+c\n" in out
