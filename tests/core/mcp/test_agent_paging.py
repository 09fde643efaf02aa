"""``memory_index`` past its 64 KB cap, in-process (the cursor logic; the transports are tested elsewhere):
pages continue with a cursor, every record is listed exactly once, and a cursor stops working once the
memory changed (a page never skips or repeats a line)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.errors import UsageError
from core.mcp.agent import INDEX_MAX_BYTES, AgentSession
from core.models import PutOp, Record
from core.store.fs import FileStore


def test_the_index_pages_past_its_cap(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    cwd = str(tmp_path / "project")
    snap = store.create_workspace(cwd)
    long = "a description that goes on for a while " * 4
    records = [Record(name=f"note-{i:03d}", description=f"{long}{i}", type="project", body="\nx\n") for i in range(500)]
    store.commit(snap.key, [PutOp(record=r) for r in records], snap.revision)
    agent = AgentSession(store, cwd, writes="off")

    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        text = agent.index_text(cursor)
        pages += 1
        assert len(text.encode()) <= INDEX_MAX_BYTES + 512
        seen += re.findall(r"^- \[(note-\d+)\]", text, re.M)
        m = re.search(r"cursor (cur1_\S+)\]", text)
        if m is None:
            break
        cursor = m.group(1)
    assert pages > 1
    assert sorted(seen) == [f"note-{i:03d}" for i in range(500)] and len(seen) == 500

    first = re.search(r"cursor (cur1_\S+)\]", agent.index_text()).group(1)  # type: ignore[union-attr]
    now = store.find_workspace(cwd)
    assert now is not None
    store.commit(
        now.key, [PutOp(record=Record(name="new-one", description="d", type="project", body="\nx\n"))], now.revision
    )
    with pytest.raises(UsageError):
        agent.index_text(first)
