"""How sizes, times and workspace problems read in messages (one helper each, for every front end)."""

from __future__ import annotations

from datetime import datetime

from core.models import WorkspaceInfo, WorkspaceSnapshot


def format_time(value: datetime | None) -> str:
    """Absolute local time to the minute (``2026-11-30 14:05``); '' when unknown."""
    if value is None:
        return ""
    if value.tzinfo is not None:
        value = value.astimezone()
    return value.strftime("%Y-%m-%d %H:%M")


def format_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def workspace_problems(info: WorkspaceInfo, *, short: bool = False) -> list[str]:
    """What to look at in a workspace: folder missing, invalid files, a bad ``scope.json``.

    ``short`` gives the compact words of a header line ("2 invalid") and leaves out the scope
    problem, which the list shows in full.
    """
    out = []
    if not info.cwd_exists:
        out.append("folder missing")
    if info.invalid_count:
        n = info.invalid_count
        out.append(f"{n} invalid" if short else f"{n} invalid file{'s' if n != 1 else ''}")
    if info.scope_problem and not short:
        out.append(info.scope_problem)
    return out


def describe_archived(snap: WorkspaceSnapshot) -> str:
    """Plain-text preview of an archived scope: where it came from, when, and its records."""
    info = snap.info
    lines = [
        f"Folder:    {info.cwd or '(unknown)'}" + ("" if info.cwd_exists else "   (this folder no longer exists)"),
        f"Archived:  {format_time(info.archived_at) or 'unknown'}",
        f"Key:       {info.key}",
        f"Size:      {format_size(info.size_bytes)}",
        "",
    ]
    valid = [e for e in snap.entries if e.is_valid and e.record is not None]
    invalid = [e for e in snap.entries if not e.is_valid]
    lines.append(f"{len(valid)} record{'s' * (len(valid) != 1)}:" if valid else "No records.")
    for e in valid:
        assert e.record is not None
        lines.append(f"  • {e.record.name}  [{e.record.type}]")
        lines.append(f"      {e.record.description}")
    if invalid:
        lines += ["", f"{len(invalid)} invalid file{'s' * (len(invalid) != 1)} (kept as they are):"]
        for e in invalid:
            lines.append(f"  • {e.file_name}: {'; '.join(e.invalid_reasons) or 'invalid'}")
    return "\n".join(lines)
