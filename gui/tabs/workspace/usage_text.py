"""How the window words usage-ledger figures (``core.usage``): relative dates, the record pane's
line, the Last used column's tooltip. Shared by the Workspace and Maintenance tabs."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from PySide6.QtCore import QCoreApplication

from core.usage import RecordUsage, Use


def relative_when(stamp: int | None, now: float | None = None) -> str:
    """ "today", "3 days ago", "2 months ago"... for an epoch-ms time; "never" for None."""
    if stamp is None:
        return QCoreApplication.translate("UsageText", "never")
    # Calendar days in local time: a use at 23:00 yesterday is "yesterday", not "today" at 08:00.
    today = datetime.fromtimestamp(time.time() if now is None else now).date()
    days = max(0, (today - datetime.fromtimestamp(stamp / 1000).date()).days)
    if days == 0:
        return QCoreApplication.translate("UsageText", "today")
    if days == 1:
        return QCoreApplication.translate("UsageText", "yesterday")
    if days < 60:
        return QCoreApplication.translate("UsageText", "%n day(s) ago", None, days)
    if days < 730:
        return QCoreApplication.translate("UsageText", "%n month(s) ago", None, days // 30)
    return QCoreApplication.translate("UsageText", "%n year(s) ago", None, days // 365)


def kind_label(kind: str) -> str:
    labels = {
        "loaded": QCoreApplication.translate("UsageText", "loaded at session start"),
        "opened": QCoreApplication.translate("UsageText", "opened"),
        "matched": QCoreApplication.translate("UsageText", "matched a search"),
        "listed": QCoreApplication.translate("UsageText", "listed"),
        "edited": QCoreApplication.translate("UsageText", "edited by an agent"),
        "served": QCoreApplication.translate("UsageText", "served over MCP"),
        "unknown": QCoreApplication.translate("UsageText", "named by an unknown tool"),
    }
    return labels.get(kind, kind)


def usage_line(usage: RecordUsage | None, available: bool, now: float | None = None) -> str:
    """The record pane's line: "Opened in 12 sessions, last 3 days ago; matched 40 searches"."""
    if not available:
        return ""
    if usage is None or not usage.counts:
        return QCoreApplication.translate(
            "UsageText", "No agent has used this record yet (in the sessions and MCP reads counted so far)."
        )
    parts: list[str] = []
    opened = usage.sessions.get("opened", 0)
    if opened:
        parts.append(QCoreApplication.translate("UsageText", "opened in %n session(s)", None, opened))
    if usage.counts.get("matched"):
        matched = usage.counts["matched"]
        parts.append(QCoreApplication.translate("UsageText", "matched %n time(s) in searches", None, matched))
    if usage.counts.get("served"):
        parts.append(
            QCoreApplication.translate("UsageText", "served %n time(s) over MCP", None, usage.counts["served"])
        )
    if usage.counts.get("edited"):
        parts.append(
            QCoreApplication.translate(
                "UsageText", "edited by an agent in %n session(s)", None, usage.sessions.get("edited", 0)
            )
        )
    if usage.counts.get("listed") and not parts:
        parts.append(
            QCoreApplication.translate(
                "UsageText", "only listed, in %n session(s)", None, usage.sessions.get("listed", 0)
            )
        )
    if not parts:
        parts.append(QCoreApplication.translate("UsageText", "seen %n time(s)", None, sum(usage.counts.values())))
    text = "; ".join(parts)
    if usage.last_used is not None:
        text += "; " + QCoreApplication.translate("UsageText", "last used {when}").format(
            when=relative_when(usage.last_used, now)
        )
    return QCoreApplication.translate("UsageText", "Agents: {what}.").format(what=text)


def _use_line(use: Use) -> str:
    when = datetime.fromtimestamp(use.time / 1000, UTC).strftime("%Y-%m-%d %H:%M") if use.time is not None else "?"
    if use.session:
        where = QCoreApplication.translate("UsageText", "session {id} · seq {seq}").format(
            id=use.session[:12], seq=use.seq
        )
    else:
        where = QCoreApplication.translate("UsageText", "MCP client {client}").format(client=use.client or "?")
    return f"• {when} · {kind_label(use.kind)} · {where} ({use.tool})"


def usage_tooltip(usage: RecordUsage | None, available: bool) -> str:
    """Counts by kind, then the last uses (newest first) with their sessions."""
    if not available:
        return QCoreApplication.translate(
            "UsageText", "No usage ledger yet: it is built from the DSH session logs when a workspace is shown."
        )
    if usage is None or not usage.counts:
        return QCoreApplication.translate("UsageText", "Never used by an agent in the sessions counted so far.")
    lines = [QCoreApplication.translate("UsageText", "Uses by kind:")]
    for kind, count in sorted(usage.counts.items(), key=lambda kv: -kv[1]):
        sessions = usage.sessions.get(kind, 0)
        where = QCoreApplication.translate("UsageText", "%n session(s)", None, sessions)
        line = QCoreApplication.translate("UsageText", "{kind}: {count} (in {sessions})")
        lines.append("  " + line.format(kind=kind_label(kind), count=count, sessions=where))
    if usage.followed:
        lines.append(
            QCoreApplication.translate(
                "UsageText", "Read after the index was loaded in %n session(s)", None, usage.followed
            )
        )
    if usage.recent:
        lines.append(QCoreApplication.translate("UsageText", "Last uses:"))
        lines += [_use_line(u) for u in usage.recent]
    return "\n".join(lines)
