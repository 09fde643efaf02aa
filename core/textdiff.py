"""Unified diffs of two texts, as ``diff -u`` prints them."""

from __future__ import annotations

import difflib


def unified_diff(old: str, new: str, old_label: str, new_label: str | None = None, context: int = 3) -> str:
    """``diff -u`` of two texts; "" when they are equal. Missing final newlines are marked."""
    if old == new:
        return ""
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    for lines in (old_lines, new_lines):
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n\\ No newline at end of file\n"
    out = difflib.unified_diff(old_lines, new_lines, old_label, new_label or old_label, n=context)
    return "".join(out)
