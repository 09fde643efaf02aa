"""The Session Consolidation tab's banner: news never pushes the review down.

The shared :class:`~gui.widgets.banner.Banner` keeps "info" messages in the layout until cleared,
which in this tab moved the sessions table and the review each time a run said "nothing new" or an
edit said "Edited …". Here an info or ok message without buttons is a toast over the tab (it
fades, clicks pass through it); warnings, errors and anything with a button stay in the layout.
"""

from __future__ import annotations

from collections.abc import Callable

from gui.widgets.banner import Banner


class ReviewBanner(Banner):
    def show_message(
        self,
        level: str,
        text: str,
        actions: list[tuple[str, Callable[[], None]]] | None = None,
        *,
        topic: str = "",
        transient: bool | None = None,
    ) -> None:
        if transient is None:
            transient = level in ("ok", "info") and not actions
        super().show_message(level, text, actions, topic=topic, transient=transient)
