"""The Sync section's sentences in the user's language, from a sync result's typed fields."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from core.display import format_time
from core.sync.models import SyncResult
from gui.core_text import core_text, core_texts

translate = QCoreApplication.translate


def status_word(status: str) -> str:
    return {
        "up-to-date": translate("SyncText", "up to date"),
        "pushed": translate("SyncText", "sent"),
        "merged": translate("SyncText", "merged"),
        "review": translate("SyncText", "waiting for your review"),
        "secret": translate("SyncText", "stopped: a record holds a credential"),
        "push-rejected": translate("SyncText", "the remote moved on; sync again"),
        "changed-here": translate("SyncText", "memory changed here while syncing; sync again"),
        "remote": translate("SyncText", "the remote could not be reached"),
        "git-missing": translate("SyncText", "git is not installed"),
        "failed": translate("SyncText", "failed"),
    }.get(status, status)


def status_text(last: SyncResult | None, open_items: int, configured: bool) -> str:
    if not configured:
        return translate("SyncText", "Sync is not set up: enter a git remote and press Sync now.")
    if last is None:
        return translate("SyncText", "Not synced yet.")
    from datetime import datetime

    try:
        when = format_time(datetime.fromisoformat(last.time))
    except ValueError:
        when = last.time
    counts = []
    if last.received:
        counts.append(translate("SyncText", "files received: %n", "", len(last.received)))
    if last.sent:
        counts.append(translate("SyncText", "files sent: %n", "", len(last.sent)))
    status = status_word(last.status) + (f" ({', '.join(counts)})" if counts else "")
    text = translate("SyncText", "Last sync {when}: {status}.").format(when=when, status=status)
    if open_items:
        text += " " + translate("SyncText", "Records to review below: %n.", "", open_items)
    if last.status == "git-missing":
        text += "\n" + translate(
            "SyncText",
            "Install git (Debian/Ubuntu: sudo apt install git; macOS: xcode-select --install; Windows: git-scm.com) "
            "and sync again. Your memory is unchanged.",
        )
    return text


def result_details(last: SyncResult) -> str:
    lines = []
    for path in last.secrets:
        lines.append(translate("SyncText", "Never sent (credential-shaped value): {path}").format(path=path))
    for path, why in {**last.frozen, **last.held}.items():
        # A frozen file's reasons are the store's invalid-record reasons: said in the user's language.
        # (one sync reason whole, or the store's reasons joined by "; ", each said on its own)
        said = core_text(why)
        if said == why:
            said = "; ".join(core_texts(why.split("; ")))
        lines.append(translate("SyncText", "Not synced: {path} — {why}").format(path=path, why=said))
    if last.unmapped:
        lines.append(
            translate(
                "SyncText",
                "Synced workspaces with no folder on this machine: %n. Map each in the Recycle Bin "
                "(Moved? Pick the new folder…).",
                "",
                len(last.unmapped),
            )
        )
    if last.purged:
        lines.append(
            translate(
                "SyncText",
                "Deleted forever on another machine: %n workspace(s). This machine's copy is in the Recycle Bin "
                "and is no longer synced; purge it there to delete it here too.",
                "",
                len(last.purged),
            )
        )
    if last.rewritten:
        lines.append(
            translate(
                "SyncText",
                "The synced history was rewritten without the workspaces deleted forever here; your other "
                "machines drop their copies at their next sync.",
            )
        )
    if last.status in ("remote", "failed", "push-rejected", "changed-here"):
        lines.append(core_text(last.message))  # core's template, said in the user's language
    return "\n".join(lines)


def badge_text(status: str | None, open_items: int, configured: bool) -> str:
    if not configured:
        return ""
    if open_items:
        return translate("SyncText", "Sync: %n to review", "", open_items)
    if status is None:
        return translate("SyncText", "Sync: not yet")
    if status in ("up-to-date", "pushed", "merged"):
        return translate("SyncText", "Sync: ✓")
    return translate("SyncText", "Sync: ⚠ {status}").format(status=status_word(status))


def badge_tooltip() -> str:
    return translate("SyncText", "Sync with your other machines (Settings ▸ Sync)")
