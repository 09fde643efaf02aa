"""The tab bar's hosts: a tab built later (:class:`LazyTab`), a tab that could not be built
(:class:`BrokenTab`), and the window's tabs by key (:class:`TabSet`)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gui.context import AppContext
from gui.tabs.base import Tab
from gui.widgets.banner import Banner
from gui.widgets.messages import describe_error


class MessageTab(Tab):
    """A tab that only shows a message (used in place of a tab that could not be built)."""

    def __init__(self, ctx: AppContext, message: str, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        layout = QVBoxLayout(self)
        label = QLabel(message)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setStyleSheet("color: #666; font-size: 13pt;")
        label.setWordWrap(True)
        layout.addWidget(label)
        self.message = message


class BrokenTab(MessageTab):
    """Stands in for a tab whose construction failed: says so in the tab (and to the self-test)."""

    def __init__(self, ctx: AppContext, title: str, exc: BaseException, parent: QWidget | None = None) -> None:
        text = self.tr("{tab} could not be opened: {error}").format(tab=title, error=describe_error(exc))
        super().__init__(ctx, text, parent)

    def error_text(self) -> str:
        return self.message


class LazyTab(Tab):
    """Keeps a tab's place in the tab bar and builds the real tab inside it on first use.

    It forwards the tab protocol (refresh, unsaved changes, save, search, shutdown, errors), so the
    window and the self-test treat it like the tab itself. Before it is built there is nothing to
    refresh, save or lose; building it runs its first load.
    """

    def __init__(
        self, ctx: AppContext, key: str, title: str, factory: Callable[[], Tab], parent: QWidget | None = None
    ) -> None:
        super().__init__(ctx, parent)
        self.key = key
        self.title = title
        self._factory = factory
        self.tab: Tab | None = None
        self.on_built: Callable[[LazyTab, Tab], None] | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    def ensure(self) -> Tab:
        if self.tab is None:
            try:
                tab = self._factory()
            except Exception as exc:  # a broken tab must not take the window down; show why instead
                sys.excepthook(type(exc), exc, exc.__traceback__)  # reported, never hidden
                tab = BrokenTab(self.ctx, self.title, exc)
            tab.setObjectName(f"{self.key}_tab")
            self.tab = tab
            self._layout.addWidget(tab)
            if self.on_built is not None:
                self.on_built(self, tab)
            tab.refresh()  # the first load (constructors don't load)
        return self.tab

    def refresh(self) -> None:
        if self.tab is not None:
            self.tab.refresh()

    def has_unsaved_changes(self) -> bool:
        return self.tab is not None and self.tab.has_unsaved_changes()

    def save(self) -> None:
        if self.tab is not None:
            self.tab.save()

    def focus_search(self) -> bool:
        return self.tab is not None and self.tab.focus_search()

    def warm_up(self) -> None:
        if self.tab is not None:
            self.tab.warm_up()

    def shutdown(self) -> None:
        if self.tab is not None:
            self.tab.shutdown()

    def error_text(self) -> str:
        return (self.tab.error_text() if self.tab is not None else None) or ""

    def showEvent(self, event: QShowEvent) -> None:
        self.ensure()
        super().showEvent(event)


class TabSet(Mapping[str, Tab]):
    """The window's tabs by key; looking a lazy tab up builds it (``built()`` never does)."""

    def __init__(self) -> None:
        self.hosts: dict[str, Tab] = {}  # what sits in the tab bar

    def __getitem__(self, key: str) -> Tab:
        host = self.hosts[key]
        return host.ensure() if isinstance(host, LazyTab) else host

    def __iter__(self) -> Iterator[str]:
        return iter(self.hosts)

    def __len__(self) -> int:
        return len(self.hosts)

    def built(self) -> dict[str, Tab]:
        out: dict[str, Tab] = {}
        for key, host in self.hosts.items():
            if isinstance(host, LazyTab):
                if host.tab is not None:
                    out[key] = host.tab
            else:
                out[key] = host
        return out


def shown_message(tab: Tab) -> str:
    """What ``tab`` says right now about a failed save: its error, else the message its banner shows."""
    err = tab.error_text()
    if err:
        return err
    texts = [b.text for b in tab.findChildren(Banner) if b.text]
    return texts[0] if texts else QCoreApplication.translate("MainWindow", "it was not saved (see the tab)")
