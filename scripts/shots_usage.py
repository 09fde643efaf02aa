"""Screenshot steps of the usage ledger (issue 30; ``scripts/screenshots.py`` runs them last).

Three DSH sessions in atlas-web (2, 9 and 40 days ago) that load the index, read
``release-process`` and ``build-with-pnpm``, grep the workspace folder and ``cat`` a record; a
Claude Code client served ``api-error-format`` a dozen times over MCP. ``api-error-format`` is
made 400 days old (used often, never changed in a year) and ``ci-cache-setup`` 45 days old and
never used. Shots: the records table sorted by Last used with the record pane's usage line, the
Last used tooltip, the review queue's two usage views, and the load meter's "Led to a read".
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scripts.screenshots import Shot

DAY = 86_400


def _session(
    root: Path, cwd: str, sid: str, days_ago: float, calls: list[tuple[str, dict[str, Any]]], index: str
) -> None:
    t0 = int((time.time() - days_ago * DAY) * 1000)
    source = {"kind": "plugin", "plugin": "dsh-memory", "sections": [{"name": "memory:workspace-index", "text": index}]}
    message = {"role": "user", "source": source, "content": [{"type": "text", "text": index}]}
    rows: list[dict[str, Any]] = [
        {"type": "session", "version": 1, "id": sid, "createdAt": t0, "cwd": cwd},
        {"type": "user/message", "seq": 0, "time": t0, "data": {"message": message}},
    ]
    for seq, (name, args) in enumerate(calls, start=1):
        data = {"turn": 1, "step": seq, "callId": f"c{seq}", "name": name, "arguments": json.dumps(args)}
        rows.append({"type": "tool/call", "seq": seq, "time": t0 + seq * 1000, "data": data})
    folder = root / ("--" + cwd.strip("/").replace("/", "-") + "--") / sid
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "session.jsonl"
    log.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows), encoding="utf-8")
    stamp = time.time() - days_ago * DAY
    os.utime(log, (stamp, stamp))


def _prepare(shot: Shot) -> str:
    from core.usage import note_served

    store = shot.ctx.store
    key = shot.workspace_key("atlas-web")
    snap = store.read_workspace(key)
    ws = shot.ctx.root / "workspaces" / key
    for name, days in (("api-error-format", 400), ("ci-cache-setup", 45)):
        old = time.time() - days * DAY
        os.utime(ws / f"{name}.md", (old, old))
    sessions = Path(shot.ctx.sessions_root)
    cwd, index = snap.info.cwd, snap.index_text
    _session(sessions, cwd, "usage-demo-1", 40, [("read", {"file_path": f"{ws}/release-process.md"})], index)
    grep = ("grep", {"pattern": "vitest", "path": str(ws), "-i": True})
    _session(sessions, cwd, "usage-demo-2", 9, [grep, ("read", {"file_path": f"{ws}/build-with-pnpm.md"})], index)
    _session(sessions, cwd, "usage-demo-3", 2, [("bash", {"command": f"cat {ws}/release-process.md | head -n 20"}),
                                                ("read", {"file_path": "README.md"})], index)  # fmt: skip
    for _ in range(12):
        note_served(store, key, ["api-error-format"], "memory_read", "claude-code")
    return key


def last_used(shot: Shot) -> None:
    from PySide6.QtCore import Qt

    key = _prepare(shot)
    tab = shot.tab("workspace")
    tab.select_workspace(key)
    tab.usage.refresh()  # the ledger was just fed: read it again (the window does on the next visit)
    tab.records.view.sortByColumn(5, Qt.SortOrder.DescendingOrder)
    tab.select_record("release-process")


def last_used_tooltip(shot: Shot) -> None:
    """The Last used cell's tooltip over the window (a tooltip is its own window: composited here)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QLabel

    from gui.qtmodels.roles import KEY_ROLE

    tab = shot.tab("workspace")
    view, proxy = tab.records.view, tab.records.proxy
    row = next(r for r in range(proxy.rowCount()) if proxy.index(r, 0).data(KEY_ROLE) == "release-process")
    cell = proxy.index(row, 5)
    tip = QLabel(cell.data(Qt.ItemDataRole.ToolTipRole))
    tip.setStyleSheet("background:#ffffe1; border:1px solid #888; padding:4px;")
    tip.adjustSize()
    picture = shot.window.grab()
    rect = view.visualRect(cell)
    at = view.viewport().mapTo(shot.window, rect.bottomLeft())
    painter = QPainter(picture)
    painter.drawPixmap(max(0, min(at.x() - 200, picture.width() - tip.width() - 4)), at.y() + 4, tip.grab())
    painter.end()
    holder = QLabel()
    holder.setPixmap(picture)
    holder.resize(picture.size())
    shot.grab_target = holder  # (the main loop grabs this instead of the window)


def review_never_used(shot: Shot) -> None:
    tab = shot.tab("maintenance")
    tab.pages.setCurrentWidget(tab.stale)
    stale = tab.stale
    stale.workspace_box.setCurrentIndex(max(stale.workspace_box.findData(shot.workspace_key("atlas-web")), 0))
    stale.start_scan()
    stale.reason_box.setCurrentIndex(stale.reason_box.findData("never-used"))


def review_used_unchanged(shot: Shot) -> None:
    stale = shot.tab("maintenance").stale
    stale.reason_box.setCurrentIndex(stale.reason_box.findData("used-unchanged"))


def load_meter_follow(shot: Shot) -> None:
    tab = shot.tab("maintenance")
    tab.stale.reason_box.setCurrentIndex(0)
    tab.pages.setCurrentWidget(tab.loads)
    tab.refresh()
    from PySide6.QtCore import Qt

    tab.loads.table.sortByColumn(7, Qt.SortOrder.DescendingOrder)


STEPS: list[tuple[str, Any]] = [
    ("usage-last-used", last_used),
    ("usage-last-used-tooltip", last_used_tooltip),
    ("usage-review-never-used", review_never_used),
    ("usage-review-used-unchanged", review_used_unchanged),
    ("usage-load-meter", load_meter_follow),
]
