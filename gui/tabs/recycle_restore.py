"""Restoring a deleted record or an earlier version from the Recycle Bin (the tab's restore flow).

Kept apart from :mod:`gui.tabs.recycle_tab` so neither module grows past one screenful of
concepts. Where the record would go back is read just before asking (:func:`core.recycle.restore_target`);
a record that already holds exactly this version is not "replaced" again, nothing is asked.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication

from core.display import format_time
from core.errors import ConflictError, SecretRefusedError
from core.models import HistoryEntry, Revision, WorkspaceSnapshot
from core.recycle import RestoreTarget, global_version, restore_entry, restore_target
from core.store.base import GLOBAL_SCOPE
from gui.qtmodels.recycle_models import DeletedRecordsModel
from gui.tabs.base import Tab
from gui.widgets.banner import Banner
from gui.widgets.messages import describe_error

translate = QCoreApplication.translate


class RecordRestorer:
    def __init__(self, tab: Tab, banner: Banner, set_busy: Callable[[bool], None]) -> None:
        self.tab = tab
        self.banner = banner
        self.set_busy = set_busy  # the tab's buttons off while a restore runs

    def restore_entry(self, entry: HistoryEntry) -> None:
        if entry.scope_key == GLOBAL_SCOPE:
            self._restore_global_version(entry)
            return
        label = DeletedRecordsModel.workspace_label(entry)
        self.set_busy(True)

        def looked(target: RestoreTarget) -> None:
            self.set_busy(False)
            if target.state == "archived":
                self.banner.show_message(
                    "error",
                    translate(
                        "RecycleBinTab",
                        "Cannot restore “{name}”: its workspace “{workspace}” is itself in the Recycle Bin. "
                        "Restore the workspace first, then restore this record.",
                    ).format(name=entry.name, workspace=label),
                )
                return
            if target.state == "missing":
                if not entry.cwd:
                    self.banner.show_message(
                        "error",
                        translate(
                            "RecycleBinTab",
                            "Cannot restore “{name}”: its workspace no longer exists and its folder is "
                            "unknown. Open the record here, copy its text and add it in the Workspace tab.",
                        ).format(name=entry.name),
                    )
                    return
                if not self.tab.ctx.dialogs.confirm(
                    self.tab,
                    translate("RecycleBinTab", "Restore record"),
                    translate(
                        "RecycleBinTab",
                        "The workspace “{workspace}” ({folder}) no longer exists.\n\n"
                        "Create it again and restore “{name}” into it?",
                    ).format(workspace=label, folder=entry.cwd, name=entry.name),
                    translate("RecycleBinTab", "Create and restore"),
                ):
                    return
                self._do_restore_entry(entry, None, create=True)
                return
            if target.same_as_current:
                # Restored already (a second click, or another window): nothing to replace, nothing to ask.
                self.banner.show_message(
                    "info",
                    translate(
                        "RecycleBinTab", "“{name}” in “{workspace}” is already this version; nothing to restore."
                    ).format(name=entry.name, workspace=label),
                )
                self.tab.refresh()
                return
            if target.record_exists and not self.tab.ctx.dialogs.confirm(
                self.tab,
                translate("RecycleBinTab", "Replace record"),
                translate(
                    "RecycleBinTab",
                    "“{workspace}” has a record named “{name}” now.\n\n"
                    "Replace it with the version shown here? The current version is kept in history.",
                ).format(workspace=label, name=entry.name),
                translate("RecycleBinTab", "Replace"),
            ):
                return
            self._do_restore_entry(entry, target.revision, create=False)

        def failed(exc: BaseException) -> None:
            self.set_busy(False)
            self.banner.show_message(
                "error",
                translate("RecycleBinTab", "Could not restore “{name}”: {why}").format(
                    name=entry.name, why=describe_error(exc)
                ),
            )

        self.tab.jobs.start("action", restore_target, self.tab.ctx.store, entry, done=looked, failed=failed)

    def _do_restore_entry(
        self, entry: HistoryEntry, expect: Revision | None, *, create: bool, allow_secrets: bool = False
    ) -> None:
        label = DeletedRecordsModel.workspace_label(entry)
        self.set_busy(True)

        def done(_snap: WorkspaceSnapshot) -> None:
            self.set_busy(False)
            self.banner.show_message(
                "ok",
                translate(
                    "RecycleBinTab", "Restored “{name}” into “{workspace}”. It is in the Workspace tab again."
                ).format(name=entry.name, workspace=label),
            )
            self.tab.refresh()  # the record is back: it leaves the deleted list
            self.tab.memory_changed.emit()

        def failed(exc: BaseException) -> None:
            self.set_busy(False)
            if isinstance(exc, SecretRefusedError) and not allow_secrets:
                # The same explicit allow as a manual save of a credential-shaped value.
                if self.tab.ctx.dialogs.confirm(
                    self.tab,
                    translate("RecycleBinTab", "Restore a version with a credential"),
                    translate(
                        "RecycleBinTab",
                        "This version of “{name}” holds what looks like a credential ({what})\n\n"
                        "Agents that load this workspace will see it. Restore it anyway?",
                    ).format(name=entry.name, what=exc.message),
                    translate("RecycleBinTab", "Restore anyway"),
                ):
                    self._do_restore_entry(entry, expect, create=False, allow_secrets=True)
                else:
                    self.banner.show_message(
                        "info",
                        translate("RecycleBinTab", "Nothing was restored; “{name}” stays in the Recycle Bin.").format(
                            name=entry.name
                        ),
                    )
                return
            if isinstance(exc, ConflictError):
                text = translate(
                    "RecycleBinTab",
                    "“{workspace}” changed while you were deciding (an agent or another window wrote to it). "
                    "Nothing was restored. The list has been refreshed: look again and restore "
                    "“{name}” if you still want it.",
                ).format(workspace=label, name=entry.name)
            else:
                text = translate("RecycleBinTab", "Could not restore “{name}”: {why}").format(
                    name=entry.name, why=describe_error(exc)
                )
            self.banner.show_message("error", text)
            self.tab.refresh()

        self.tab.jobs.start(
            "action", restore_entry, self.tab.ctx.store, entry, expect, create, allow_secrets, done=done, failed=failed
        )

    def _restore_global_version(self, entry: HistoryEntry) -> None:
        """An earlier GLOBAL.md goes back through replace_global, CAS on the revision read just before."""
        store = self.tab.ctx.store
        self.set_busy(True)

        def looked(result: tuple[str, Revision]) -> None:
            self.set_busy(False)
            text, revision = result
            if not self.tab.ctx.dialogs.confirm(
                self.tab,
                translate("RecycleBinTab", "Restore Global"),
                translate(
                    "RecycleBinTab",
                    "Replace GLOBAL.md with this earlier version from {when}?\n\n"
                    "The current GLOBAL.md is kept in history.",
                ).format(when=format_time(entry.time)),
                translate("RecycleBinTab", "Replace"),
            ):
                return
            self.set_busy(True)

            def written(_result: object) -> None:
                self.set_busy(False)
                self.banner.show_message(
                    "ok", translate("RecycleBinTab", "GLOBAL.md is back to the version shown here.")
                )
                self.tab.refresh()

            def refused(exc: BaseException) -> None:
                self.set_busy(False)
                text = (
                    translate(
                        "RecycleBinTab", "GLOBAL.md changed while you were deciding. Nothing was restored; look again."
                    )
                    if isinstance(exc, ConflictError)
                    else translate("RecycleBinTab", "Could not restore GLOBAL.md: {why}").format(
                        why=describe_error(exc)
                    )
                )
                self.banner.show_message("error", text)
                self.tab.refresh()

            self.tab.jobs.start("action", store.replace_global, text, revision, done=written, failed=refused)

        def failed(exc: BaseException) -> None:
            self.set_busy(False)
            if isinstance(exc, UnicodeDecodeError):
                msg = translate("RecycleBinTab", "that version is not valid UTF-8 text.")
            else:
                msg = describe_error(exc)
            self.banner.show_message(
                "error", translate("RecycleBinTab", "Could not restore GLOBAL.md: {why}").format(why=msg)
            )

        self.tab.jobs.start("action", global_version, store, entry.id, done=looked, failed=failed)
