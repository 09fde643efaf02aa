"""Issue 15 in the window: the first index build runs on a worker and the search panel says
"indexing N %…"; the box stays usable meanwhile (queries search what is indexed so far)."""

from __future__ import annotations

import threading
import time
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


def test_edit_made_while_the_window_was_closed_is_found_at_start_up(ctx: AppContext, sample: Any, qtbot: Any) -> None:
    """The persisted index is searchable first; the start-up pass then looks at every file's stat,
    so a record rewritten in place (its folder's mtime unchanged) while closed is found."""
    from tests.core.search.search_support import age_files, set_mtime

    age_files(ctx.root / "workspaces")  # written a while ago: folder stamps are trusted
    earlier = SearchIndex(ctx.store)  # a previous session: persists its index under .manager/
    earlier.refresh()

    folder = ctx.root / "workspaces" / sample["alpha"].key
    path = folder / "code-style.md"
    before = folder.stat().st_mtime_ns
    with path.open("r+", encoding="utf-8") as f:  # in place: no rename, folder mtime kept
        text = f.read().replace("Keep functions short.", "Keep functions quokka-short.")
        f.seek(0)
        f.write(text)
        f.truncate()
    set_mtime(path, time.time() - 1800)
    assert folder.stat().st_mtime_ns == before
    ctx.search = SearchIndex(ctx.store)  # this session: loads the persisted index
    tab = WorkspaceTab(ctx)
    qtbot.addWidget(tab)
    tab.refresh()
    tab.warm_up()  # the first refresh (synchronous runner in tests)
    tab.search_box.setText("quokka")
    tab.run_search_now()
    assert [h.name for h in tab.last_search_hits] == ["code-style"]
