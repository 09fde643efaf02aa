"""One "Undo last commit" button for a workspace or Global (core/undo.py does the work, on a worker).

One click undoes: no confirmation, because the undo is itself a commit and so can be undone the
same way (the banner says so). It is refused, with nothing written, when the scope changed since
that commit; a version holding a credential asks first, as any manual write does.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QPushButton, QWidget

from core.errors import SecretRefusedError, UndoRefusedError
from core.models import GlobalSnapshot, WorkspaceSnapshot
from core.store.api import MemoryStore
from core.store.commit_log import CommitLogEntry
from core.undo import GLOBAL, last_commit, undo_last_commit
from gui.context import AppContext
from gui.tasks import Jobs
from gui.widgets.read_only import mark_writes


def describe_undo_refusal(exc: UndoRefusedError) -> str:
    """The refusal in the interface language, from its kind and fields (English text as fallback)."""
    if exc.kind == "nothing":
        return QCoreApplication.translate(
            "UndoCommitButton", "Nothing to undo: no commit of this scope is recorded yet."
        )
    if exc.kind == "changed":
        what = (
            QCoreApplication.translate("UndoCommitButton", "GLOBAL.md")
            if exc.scope == GLOBAL
            else QCoreApplication.translate("UndoCommitButton", "This workspace")
        )
        return QCoreApplication.translate(
            "UndoCommitButton",
            "{what} changed after that commit (an agent, another program or another edit wrote to it), so "
            "it can't be undone safely. Nothing was written; its earlier versions are in the Recycle Bin.",
        ).format(what=what)
    if exc.kind == "history-missing":
        return QCoreApplication.translate(
            "UndoCommitButton",
            "The previous version of {name} is no longer in history (it expired); nothing was undone.",
        ).format(name=exc.name)
    if exc.kind == "not-found":
        return QCoreApplication.translate(
            "UndoCommitButton", "This workspace is not active any more (archived or removed); nothing was undone."
        )
    return exc.message


def describe_commit(entry: CommitLogEntry) -> str:
    """ "12:03 · 3 records: a, b, c" for the button's tooltip and the banner."""
    names = [c.name for c in entry.changes]
    shown = ", ".join(names[:4]) + ("…" if len(names) > 4 else "")
    when = entry.time.astimezone().strftime("%Y-%m-%d %H:%M")
    return QCoreApplication.translate("UndoCommitButton", "%n record(s) at {when}: {names}", "", len(names)).format(
        when=when, names=shown
    )


def _undo(
    store: MemoryStore, scope: str, allow_secrets: bool
) -> tuple[CommitLogEntry, WorkspaceSnapshot | GlobalSnapshot]:
    """On a worker: the commit undone and the scope after the undo."""
    entry = last_commit(store, scope)
    result = undo_last_commit(store, scope, allow_secrets=allow_secrets)
    assert entry is not None  # undo_last_commit refuses when nothing is logged
    return entry, result


class UndoCommitButton(QPushButton):
    """Undo the last commit of ``scope()`` (a workspace key, ``"global"``, or None: disabled)."""

    undone = Signal(str)  # what was undone, described for a banner
    refused = Signal(str)  # why nothing was undone (translated)
    failed = Signal(object)  # any other exception

    def __init__(
        self,
        ctx: AppContext,
        scope: Callable[[], str | None],
        blocked: Callable[[], bool] = lambda: False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setText(self.tr("Undo last commit"))
        self.setObjectName("undo_last_commit")
        self.setToolTip(self.tr("Put back what the last commit here changed (itself a commit: undo it again to redo)"))
        self.ctx = ctx
        self.jobs = Jobs(self, ctx.runner)
        self._scope = scope
        self._blocked = blocked  # True while unsaved edits or staged changes would be mixed into the undo
        mark_writes(self)
        self.clicked.connect(lambda: self.undo())

    def undo(self, *, allow_secrets: bool = False) -> None:
        scope = self._scope()
        if scope is None or self.jobs.running("undo"):
            return
        if self._blocked():
            self.refused.emit(
                self.tr("Commit (or save) or discard your unsaved changes first, then undo the last commit.")
            )
            return

        def done(result: tuple[CommitLogEntry, object]) -> None:
            self.setEnabled(True)
            self.undone.emit(
                self.tr("Undid the last commit ({what}). To redo it, undo again.").format(
                    what=describe_commit(result[0])
                )
            )

        def failed(exc: BaseException) -> None:
            self.setEnabled(True)
            if isinstance(exc, UndoRefusedError):
                self.refused.emit(describe_undo_refusal(exc))
            elif isinstance(exc, SecretRefusedError) and not allow_secrets:
                if self.ctx.dialogs.confirm(
                    self,
                    self.tr("Possible credential"),
                    self.tr(
                        "The version the undo puts back looks like it contains a credential:\n{where}\n\n"
                        "Agents read memory. Undo anyway?"
                    ).format(where="\n".join(exc.findings)),
                    self.tr("Undo anyway"),
                ):
                    self.undo(allow_secrets=True)
                else:
                    self.refused.emit(self.tr("Nothing was undone."))
            else:
                self.failed.emit(exc)

        self.setEnabled(False)
        self.jobs.start("undo", _undo, self.ctx.store, scope, allow_secrets, done=done, failed=failed)
