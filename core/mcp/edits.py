"""The partial edits of ``memory_edit``: a record body in, the new whole body out (pure functions).

The result is committed or proposed as a whole-record put (the user reviews it as a diff), so an
edit can never do what a put could not. Anything ambiguous is refused, never guessed: a heading
that is not there (or is there twice), a find text found zero or several times.
"""

from __future__ import annotations

import re
from typing import Any

from core.errors import UsageError

EDIT_OPS = ("append", "replace_section", "find_replace")
MAX_EDIT_BYTES = 64 * 1024

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")


def _text(args: dict[str, Any], key: str, op: str, *, allow_empty: bool = False) -> str:
    value = args.get(key)
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise UsageError(f"{op} needs `{key}` (a non-empty string). Nothing was written.")
    if len(value.encode("utf-8")) > MAX_EDIT_BYTES:
        raise UsageError(f"`{key}` is longer than {MAX_EDIT_BYTES} bytes. Nothing was written.")
    return value


def _norm(heading: str) -> str:
    return re.sub(r"\s+", " ", heading.strip().lstrip("#").strip()).casefold()


def apply_edit(body: str, op: str, args: dict[str, Any]) -> str:
    """``body`` after the edit ``op`` with ``args`` (``text``, ``heading``, ``old``, ``new``)."""
    if op == "append":
        text = _text(args, "text", op).strip("\n")
        return body.rstrip("\n") + "\n\n" + text + "\n"
    if op == "find_replace":
        old = _text(args, "old", op)
        new = _text(args, "new", op, allow_empty=True)
        count = body.count(old)
        if count != 1:
            raise UsageError(
                f"find_replace needs `old` to occur exactly once in the record; it occurs {count} time(s). "
                "Quote more of the surrounding text so it is unique. Nothing was written."
            )
        return body.replace(old, new, 1)
    if op == "replace_section":
        return _replace_section(body, _text(args, "heading", op), _text(args, "text", op, allow_empty=True))
    raise UsageError(f"op must be one of {', '.join(EDIT_OPS)}. Nothing was written.")


def _replace_section(body: str, heading: str, text: str) -> str:
    """The lines under ``heading`` (up to the next heading of the same or a higher level) replaced."""
    lines = body.splitlines(keepends=True)
    want = _norm(heading)
    found: list[tuple[int, int]] = []
    in_fence = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        m = None if in_fence else _HEADING.match(line.rstrip("\n"))
        if m and _norm(m.group(2)) == want:
            found.append((i, len(m.group(1))))
    if len(found) != 1:
        headings = [ln.strip() for ln in lines if _HEADING.match(ln.rstrip("\n"))]
        raise UsageError(
            f"replace_section needs exactly one heading {heading!r} in the record; it has {len(found)}. "
            f"Its headings: {headings or 'none'}. Nothing was written."
        )
    start, level = found[0]
    end = len(lines)
    in_fence = False
    for j in range(start + 1, len(lines)):
        if lines[j].lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        m = None if in_fence else _HEADING.match(lines[j].rstrip("\n"))
        if m and len(m.group(1)) <= level:
            end = j
            break
    section = text.strip("\n")
    new = [lines[start] if lines[start].endswith("\n") else lines[start] + "\n"]
    if section:
        new.append("\n" + section + "\n")
    if end < len(lines):
        new.append("\n")
    return "".join(lines[:start] + new + lines[end:])
