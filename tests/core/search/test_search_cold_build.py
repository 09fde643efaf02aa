"""A cold build shared with helper processes (core/search/cold_build.py): what a user notices is
that every record is found, ranked as a one-process build ranks it, whatever the helpers do,
die or claim, and that a record written while a helper reads its folder is found too."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from search_support import age_files, put, rec

from core.search import SearchIndex, cold_build
from core.store.fs import FileStore

QUERIES = ("pnpm", "lockfile committed", '"use pnpm"', "打包", "zebra3", "deploy-notes", "rollback")
BODIES = (
    "pnpm " * 12 + "lockfile",
    "use pnpm to build; the lockfile is committed",
    "打包用了 electron-builder，打包为什么慢？",
    "数据库迁移 migration 回滚 rollback",
)
WORKSPACES = 12
Answers = dict[str, list[tuple[str, str, str]]]  # query -> (scope, name, snippet) of every hit


def build_root(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    store = FileStore(root)
    for i in range(WORKSPACES):
        records = [rec(f"r-{i}-{j}", f"{body} zebra{i}") for j, body in enumerate(BODIES)]
        records.append(rec("deploy-notes", f"how we deploy {i}", type_="reference"))
        put(store, f"/w/{i}", records)
    age_files(root)
    return root


def answers(ix: SearchIndex) -> Answers:
    return {q: [(h.scope_key, h.name, h.snippet) for h in ix.search(q, limit=100).hits] for q in QUERIES}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return build_root(tmp_path)


@pytest.fixture
def reference(root: Path) -> Answers:
    """What one process that keeps everything in memory answers."""
    ix = SearchIndex(FileStore(root), cache_dir=False)
    ix.refresh()
    return answers(ix)


@pytest.fixture
def eager_helpers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """One helper, started after the first scope; returns the segment ids helpers answered for."""
    monkeypatch.setenv("DSH_MEMORY_BUILD_HELPERS", "1")
    monkeypatch.setattr(cold_build, "HELPER_AFTER_S", 0.0)
    monkeypatch.setattr(cold_build, "HELPER_MIN_REMAINING_S", 0.0)
    by_helper: list[str] = []
    done = cold_build.Queue.done

    def spy(self: cold_build.Queue, item: cold_build.Item, reindexed: int | None, *, helper: bool = False) -> None:
        if helper and reindexed is not None:
            by_helper.append(item.sid)
        done(self, item, reindexed, helper=helper)

    monkeypatch.setattr(cold_build.Queue, "done", spy)
    return by_helper


def slow_parent(monkeypatch: pytest.MonkeyPatch, seconds: float = 0.05) -> None:
    """The refreshing process builds slowly, so a helper surely gets scopes of its own."""
    build_row = SearchIndex.build_row

    def slow(self: SearchIndex, *args: object, **kw: object) -> int | None:
        import time

        time.sleep(seconds)
        return build_row(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(SearchIndex, "build_row", slow)


def fake_helper(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, code: str) -> None:
    script = tmp_path / "helper.py"
    script.write_text(textwrap.dedent(code))
    monkeypatch.setattr(cold_build, "helper_argv", lambda root, cache_dir: [sys.executable, str(script), str(root)])


def test_a_build_shared_with_a_helper_finds_and_ranks_as_one_process(
    root: Path, reference: Answers, eager_helpers: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    slow_parent(monkeypatch)
    seen: list[tuple[int, int]] = []
    ix = SearchIndex(FileStore(root))
    stats = ix.refresh(progress=lambda done, total: seen.append((done, total)))
    assert eager_helpers, "the helper built no scope"
    assert stats.docs_total == WORKSPACES * (len(BODIES) + 1)
    assert stats.docs_reindexed == stats.docs_total
    assert answers(ix) == reference
    assert seen[-1] == (WORKSPACES + 1, WORKSPACES + 1)  # (the workspaces and GLOBAL.md)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen), "progress went backwards"
    # The rows the helper wrote are the persisted index: a reopen reads every scope from them.
    again = SearchIndex(FileStore(root))
    assert again.refresh().from_cache == WORKSPACES + 1  # (and GLOBAL.md's row)
    assert answers(again) == reference


KILLED = """
import os, signal, sys
sys.stdin.readline()  # takes a scope, then dies without a word
os.kill(os.getpid(), signal.SIGKILL)
"""
CLAIMING = """
import sys
for line in sys.stdin:  # claims every scope without writing a row
    print("ok 5", flush=True)
"""


@pytest.mark.parametrize(("code", "answers_ok"), [(KILLED, False), (CLAIMING, True)], ids=["killed", "claiming"])
def test_a_misbehaving_helper_loses_nothing(
    root: Path,
    reference: Answers,
    eager_helpers: list[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    code: str,
    answers_ok: bool,
) -> None:
    """A helper SIGKILLed after taking a scope, or one claiming rows it never wrote."""
    fake_helper(monkeypatch, tmp_path, code)
    slow_parent(monkeypatch)
    ix = SearchIndex(FileStore(root))
    stats = ix.refresh()
    if answers_ok:
        assert eager_helpers, "the fake helper was asked for no scope"
    assert stats.docs_total == WORKSPACES * (len(BODIES) + 1)
    assert answers(ix) == reference


def test_a_record_written_while_a_helper_reads_its_folder_is_found(
    root: Path, eager_helpers: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A real helper, except that right after writing its first row another program (an agent's
    # file tool) adds a record to that very folder.
    fake_helper(
        monkeypatch,
        tmp_path,
        f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[3])!r})
        from pathlib import Path
        from core.search import cold_build

        root = Path(sys.argv[1])
        taken = []

        def lines():
            for line in sys.stdin:
                taken.append(line.split()[2])
                yield line

        class Out:
            wrote = False

            def write(self, text):
                if not self.wrote and text.startswith("ok"):
                    self.wrote = True
                    (root / "workspaces" / taken[0] / "late-arrival.md").write_text(
                        "---\\nname: late-arrival\\ndescription: written meanwhile\\n"
                        "metadata:\\n  type: project\\n---\\n\\nquokka\\n"
                    )
                sys.stdout.write(text)

            def flush(self):
                sys.stdout.flush()

        cold_build.serve(root, root / ".manager" / "cache", lines(), Out())
        """,
    )
    slow_parent(monkeypatch)
    ix = SearchIndex(FileStore(root))
    ix.refresh()
    assert eager_helpers
    assert [h.name for h in ix.search("quokka").hits] == ["late-arrival"]


def test_no_helpers_when_none_are_allowed(
    root: Path, reference: Answers, eager_helpers: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DSH_MEMORY_BUILD_HELPERS", "0")
    ix = SearchIndex(FileStore(root))
    ix.refresh()
    assert eager_helpers == []
    assert answers(ix) == reference
