"""Committing the Workspace tab's batch: one CAS job, and what happens when it is refused
(the workspace changed on disk, a credential, an invalid record), plus reloading under staged work."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from core.changeset import ChangeSet, LoadedWorkspace, commit_changes, load_workspace
from core.errors import ConflictError, InvalidRecordError, NotFoundError, SecretRefusedError
from core.store.api import MemoryStore
from gui.widgets.messages import describe_error

if TYPE_CHECKING:
    from gui.tabs.workspace.view import WorkspaceTab


def reload_all(store: MemoryStore, key: str, targets: list[str]) -> tuple[LoadedWorkspace, dict[str, LoadedWorkspace]]:
    """On a worker: the workspace and the workspaces records are staged to go to (those still there)."""
    loaded = load_workspace(store, key)
    out: dict[str, LoadedWorkspace] = {}
    for target in targets:
        with contextlib.suppress(NotFoundError):
            out[target] = load_workspace(store, target)
    return loaded, out


class CommitFlow(QObject):
    def __init__(self, tab: WorkspaceTab) -> None:
        super().__init__(tab)
        self.tab = tab

    def commit(self, *, allow_secrets: bool = False) -> None:
        tab = self.tab
        changes = tab.changes
        if changes is None or not changes or tab.current_key is None or tab.jobs.running("commit"):
            return
        count = len(changes)

        def done(loaded: LoadedWorkspace) -> None:
            tab.changes = None  # force apply even when an external refresh raced us
            tab.current_key = loaded.snapshot.key
            tab.apply_snapshot(loaded)
            name = tab.editor.editing_name
            if name is not None:
                if loaded.snapshot.get(name) is None:
                    tab.editor.clear()
                else:
                    tab.load_editor(name)
            tab.banner.show_message("ok", self.tr("Committed %n change(s).", "", count))
            tab.refresh()

        def failed(exc: BaseException) -> None:
            tab.update_staged_view()
            if isinstance(exc, ConflictError):
                self.on_conflict()
            elif isinstance(exc, SecretRefusedError) and not allow_secrets:
                where = "\n".join(exc.findings)
                if tab.ctx.dialogs.confirm(
                    tab,
                    self.tr("Possible credential"),
                    self.tr(
                        "The staged changes look like they contain a credential:\n{where}\n\n"
                        "Agents read memory. Commit anyway?"
                    ).format(where=where),
                    self.tr("Commit anyway"),
                ):
                    self.commit(allow_secrets=True)
                else:
                    tab.banner.show_message(
                        "warning", self.tr("Not committed: remove the credential, stage, and commit again.")
                    )
            elif isinstance(exc, InvalidRecordError):
                tab.banner.show_message("error", describe_error(exc))
            else:
                tab.on_error(exc)

        tab.jobs.start(
            "commit",
            commit_changes,
            tab.ctx.store,
            changes.key,
            changes.ops,
            changes.base_revision,
            allow_secrets,
            tuple(changes.outgoing.values()),
            done=done,
            failed=failed,
        )
        tab.commit_button.setEnabled(not tab.jobs.running("commit") and bool(tab.changes))

    def on_conflict(self) -> None:
        tab = self.tab
        tab.banner.show_message(
            "warning",
            self.tr(
                "Not committed: this workspace (or one you are moving records to) changed on disk after you "
                "started (an agent or another program wrote to it). Nothing was written; your staged "
                "changes are kept."
            ),
            [(self.tr("Reload and re-review"), self.rebase_on_disk)],
        )
        if tab.ctx.dialogs.confirm(
            tab,
            self.tr("Workspace changed on disk"),
            self.tr(
                "This workspace changed on disk after you staged your changes, so nothing was written.\n\n"
                "Reload it now? Your staged changes are kept and shown against the current version so you "
                "can review them again before committing."
            ),
            self.tr("Reload"),
        ):
            self.rebase_on_disk()

    def rebase_on_disk(self) -> None:
        """Adopt the newest disk state, keeping staged changes (re-review their diffs) and editor edits."""
        tab = self.tab
        if tab.current_key is None:
            return

        def adopt(result: tuple[LoadedWorkspace, dict[str, LoadedWorkspace]]) -> None:
            loaded, targets = result
            if loaded.snapshot.key != tab.current_key:
                return
            if tab.changes is None:
                tab.changes = ChangeSet(loaded)
            else:
                tab.changes.rebase(loaded)
                # Records going elsewhere are re-read too: their targets may be what changed.
                for key, out in list(tab.changes.outgoing.items()):
                    if key in targets:
                        out.target = targets[key]
                    else:
                        tab.changes.outgoing.pop(key, None)  # that workspace is gone
            tab.pending = None
            tab.ws_banner.clear()
            tab.show_loaded()
            tab.editor.check()
            if tab.staged or tab.changes.outgoing:
                tab.detail.setCurrentIndex(1)
                tab.banner.show_message(
                    "info", self.tr("Reloaded. Review the staged changes against the current version, then commit.")
                )

        targets = list(tab.changes.outgoing) if tab.changes is not None else []
        tab.jobs.start("rebase", reload_all, tab.ctx.store, tab.current_key, targets, done=adopt, failed=tab.on_error)
