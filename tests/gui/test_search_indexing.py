"""Issue 15 in the window: the first index build runs on a worker and the search panel says
"indexing N %…"; the box stays usable meanwhile (queries search what is indexed so far)."""

from __future__ import annotations

import threading
from typing import Any

from core.search import SearchIndex
from gui.context import AppContext
from gui.tabs.workspace import WorkspaceTab
from gui.tasks import ThreadPoolTaskRunner


def test_indexing_progress_is_shown_and_search_does_not_wait(ctx: AppContext, sample: Any, qtbot: Any) -> None:
    release = threading.Event()
    reached = threading.Event()

    class SlowIndex(SearchIndex):
        def refresh(self, *args: Any, **kwargs: Any) -> Any:
            progress = kwargs.get("progress")
            if progress is not None:
                progress(2, 5)  # 40 %: then wait, as a big root would
                reached.set()
                assert release.wait(10)
            return super().refresh(*args, **kwargs)

    ctx.search = SlowIndex(ctx.store, cache_dir=False)
    runner = ThreadPoolTaskRunner()
    ctx.runner = runner
    tab = WorkspaceTab(ctx)
    qtbot.addWidget(tab)
    try:
        tab.refresh()
        tab.warm_up()  # what the window calls once start-up is done
        assert reached.wait(10)
        panel = tab.search
        qtbot.waitUntil(lambda: panel.status.text() == "indexing 40 %…", timeout=5000)
        assert panel.indexing and panel.status.isVisibleTo(tab)
        tab.search_box.setText("build")
        tab.run_search_now()  # the box is usable: this query does not wait for the build
        qtbot.waitUntil(lambda: "so far" in panel.status.text(), timeout=5000)
        assert panel.status.text().startswith("indexing 40 %…")
        release.set()
        qtbot.waitUntil(lambda: not panel.indexing and "indexing" not in panel.status.text(), timeout=10000)
        qtbot.waitUntil(lambda: any(h.name == "build-steps" for h in tab.last_search_hits), timeout=10000)
        assert panel.status.text().endswith("for “build”")
    finally:
        release.set()
        tab.shutdown()
        runner.wait_all(10000)
