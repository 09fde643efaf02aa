"""How the window words usage-ledger figures (``core.usage``): relative dates, the record pane's
line, the Last used column's tooltip. Shared by the Workspace and Maintenance tabs."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from PySide6.QtCore import QCoreApplication

from core.usage import RecordUsage, Use

_DAY_MS = 86_400_000


def _tr(text: str, n: int = -1) -> str:
    return QCoreApplication.translate("UsageText", text, "", n)


def relative_when(stamp: int | None, now: float | None = None) -> str:
    """ "today", "3 days ago", "2 months ago"... for an epoch-ms time; "never" for None."""
    if stamp is None:
        return _tr("never")
    current = (time.time() if now is None else now) * 1000
    days = max(0, int((current - stamp) // _DAY_MS))
    if days == 0:
        return _tr("today")
    if days == 1:
        return _tr("yesterday")
    if days < 60:
        return _tr("%n day(s) ago", days)
    if days < 730:
        return _tr("%n month(s) ago", days // 30)
    return _tr("%n year(s) ago", days // 365)


def kind_label(kind: str) -> str:
    labels = {
        "loaded": _tr("loaded at session start"),
        "opened": _tr("opened"),
        "matched": _tr("matched a search"),
        "listed": _tr("listed"),
        "edited": _tr("edited by an agent"),
        "served": _tr("served over MCP"),
        "unknown": _tr("named by an unknown tool"),
    }
    return labels.get(kind, kind)


def usage_line(usage: RecordUsage | None, available: bool, now: float | None = None) -> str:
    """The record pane's line: "Opened in 12 sessions, last 3 days ago; matched 40 searches"."""
    if not available:
        return ""
    if usage is None or not usage.counts:
        return _tr("No agent has used this record yet (in the sessions and MCP reads counted so far).")
    parts: list[str] = []
    opened = usage.sessions.get("opened", 0)
    if opened:
        parts.append(_tr("opened in %n session(s)", opened))
    if usage.counts.get("matched"):
        parts.append(_tr("matched %n search(es)", usage.counts["matched"]))
    if usage.counts.get("served"):
        parts.append(_tr("served %n time(s) over MCP", usage.counts["served"]))
    if usage.counts.get("edited"):
        parts.append(_tr("edited by an agent in %n session(s)", usage.sessions.get("edited", 0)))
    if usage.counts.get("listed") and not parts:
        parts.append(_tr("only listed, in %n session(s)", usage.sessions.get("listed", 0)))
    if not parts:
        parts.append(_tr("seen %n time(s)", sum(usage.counts.values())))
    text = "; ".join(parts)
    if usage.last_used is not None:
        text += "; " + _tr("last used {when}").format(when=relative_when(usage.last_used, now))
    return _tr("Agents: {what}.").format(what=text)


def _use_line(use: Use) -> str:
    when = datetime.fromtimestamp(use.time / 1000, UTC).strftime("%Y-%m-%d %H:%M") if use.time is not None else "?"
    if use.session:
        where = _tr("session {id} · seq {seq}").format(id=use.session[:12], seq=use.seq)
    else:
        where = _tr("MCP client {client}").format(client=use.client or "?")
    return f"• {when} · {kind_label(use.kind)} · {where} ({use.tool})"


def usage_tooltip(usage: RecordUsage | None, available: bool) -> str:
    """Counts by kind, then the last uses (newest first) with their sessions."""
    if not available:
        return _tr("No usage ledger yet: it is built from the DSH session logs when a workspace is shown.")
    if usage is None or not usage.counts:
        return _tr("Never used by an agent in the sessions counted so far.")
    lines = [_tr("Uses by kind:")]
    for kind, count in sorted(usage.counts.items(), key=lambda kv: -kv[1]):
        sessions = usage.sessions.get(kind, 0)
        lines.append("  " + _tr("{kind}: {count} (in {sessions})").format(
            kind=kind_label(kind), count=count, sessions=_tr("%n session(s)", sessions)))  # fmt: skip
    if usage.followed:
        lines.append(_tr("Read after the index was loaded in %n session(s)", usage.followed))
    if usage.recent:
        lines.append(_tr("Last uses:"))
        lines += [_use_line(u) for u in usage.recent]
    return "\n".join(lines)
