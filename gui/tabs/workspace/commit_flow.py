"""Committing the Workspace tab's batch: one CAS job, and what happens when it is refused
(the workspace changed on disk, a credential, an invalid record), plus reloading under staged work.

The flow sees the Workspace tab only through :class:`CommitHost` and hands results back to it
(:meth:`CommitHost.adopt_committed`, :meth:`CommitHost.adopt_rebased`); it never sets the tab's state.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QTabWidget, QWidget

from core.changeset import ChangeSet, LoadedWorkspace, commit_changes, load_workspace
from core.errors import ConflictError, InvalidRecordError, NotFoundError, SecretRefusedError
from core.store.api import MemoryStore
from gui.widgets.messages import describe_error

if TYPE_CHECKING:
    from gui.context import AppContext
    from gui.tasks import Jobs
    from gui.widgets.banner import Banner


def reload_all(store: MemoryStore, key: str, targets: list[str]) -> tuple[LoadedWorkspace, dict[str, LoadedWorkspace]]:
    """On a worker: the workspace and the workspaces records are staged to go to (those still there)."""
    loaded = load_workspace(store, key)
    out: dict[str, LoadedWorkspace] = {}
    for target in targets:
        with contextlib.suppress(NotFoundError):
            out[target] = load_workspace(store, target)
    return loaded, out


class CommitHost(Protocol):
    """What the commit flow uses of the Workspace tab."""

    @property
    def ctx(self) -> AppContext: ...
    @property
    def jobs(self) -> Jobs: ...
    @property
    def banner(self) -> Banner: ...
    @property
    def detail(self) -> QTabWidget: ...
    @property
    def changes(self) -> ChangeSet | None: ...
    @property
    def current_key(self) -> str | None: ...
    def adopt_committed(self, loaded: LoadedWorkspace) -> None:
        """Show the workspace as the commit wrote it (nothing staged any more)."""

    def adopt_rebased(self, changes: ChangeSet) -> None:
        """Show the staged batch (and editor edits) against the newest disk state."""

    def update_staged_view(self) -> None: ...
    def refresh(self) -> None: ...
    def on_error(self, exc: BaseException) -> None: ...


class CommitFlow(QObject):
    def __init__(self, tab: CommitHost, parent: QWidget) -> None:
        super().__init__(parent)
        self.tab = tab
        self._window = parent  # dialogs open over it

    def commit(self, *, allow_secrets: bool = False) -> None:
        tab = self.tab
        changes = tab.changes
        if changes is None or not changes or tab.current_key is None or tab.jobs.running("commit"):
            return
        count = len(changes)

        def done(loaded: LoadedWorkspace) -> None:
            tab.adopt_committed(loaded)
            tab.banner.show_message("ok", self.tr("Committed %n change(s).", "", count))
            tab.refresh()

        def failed(exc: BaseException) -> None:
            tab.update_staged_view()
            if isinstance(exc, ConflictError):
                self.on_conflict()
            elif isinstance(exc, SecretRefusedError) and not allow_secrets:
                where = "\n".join(exc.findings)
                if tab.ctx.dialogs.confirm(
                    self._window,
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
        tab.update_staged_view()  # Commit is disabled while the job runs

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
            self._window,
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
            changes = tab.changes
            if changes is None:
                changes = ChangeSet(loaded)
            else:
                changes.rebase(loaded)
                # Records going elsewhere are re-read too: their targets may be what changed.
                for key, out in list(changes.outgoing.items()):
                    if key in targets:
                        out.target = targets[key]
                    else:
                        changes.outgoing.pop(key, None)  # that workspace is gone
            tab.adopt_rebased(changes)
            if changes.staged or changes.outgoing:
                tab.detail.setCurrentIndex(1)
                tab.banner.show_message(
                    "info", self.tr("Reloaded. Review the staged changes against the current version, then commit.")
                )

        targets = list(tab.changes.outgoing) if tab.changes is not None else []
        tab.jobs.start("rebase", reload_all, tab.ctx.store, tab.current_key, targets, done=adopt, failed=tab.on_error)
