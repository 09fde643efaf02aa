"""The Recycle Bin's preview of an archived workspace, in the user's language.

The same facts as :func:`core.display.describe_archived` (the CLI's English text), worded here from
the snapshot's fields so the window can translate them; record names, descriptions and paths are
data and stay as they are.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from core.display import format_size, format_time
from core.models import WorkspaceSnapshot
from gui.core_text import core_texts

translate = QCoreApplication.translate


def describe_archived_workspace(snap: WorkspaceSnapshot) -> str:
    info = snap.info
    folder = info.cwd or translate("RecycleText", "(unknown)")
    if info.cwd and not info.cwd_exists:
        folder += "   " + translate("RecycleText", "(this folder no longer exists)")
    lines = [
        translate("RecycleText", "Folder: {folder}").format(folder=folder),
        translate("RecycleText", "Archived: {when}").format(
            when=format_time(info.archived_at) or translate("RecycleText", "unknown")
        ),
        translate("RecycleText", "Key: {key}").format(key=info.key),
        translate("RecycleText", "Size: {size}").format(size=format_size(info.size_bytes)),
        "",
    ]
    valid = [e for e in snap.entries if e.is_valid and e.record is not None]
    invalid = [e for e in snap.entries if not e.is_valid]
    if not valid:
        lines.append(translate("RecycleText", "No records."))
    elif len(valid) == 1:
        lines.append(translate("RecycleText", "1 record:"))
    else:
        lines.append(translate("RecycleText", "%n records:", "", len(valid)))
    for e in valid:
        assert e.record is not None
        lines.append(f"  • {e.record.name}  [{e.record.type}]")
        lines.append(f"      {e.record.description}")
    if invalid:
        lines += ["", translate("RecycleText", "Invalid files (kept as they are): %n", "", len(invalid))]
        for e in invalid:
            why = "; ".join(core_texts(e.invalid_reasons)) or translate("RecycleText", "invalid")
            lines.append(f"  • {e.file_name}: {why}")
    return "\n".join(lines)
