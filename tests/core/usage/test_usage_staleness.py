"""The stale-memory queue's rules on age and use, with a real ledger."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from core import staleness
from core.usage import UsageLedger, note_served
from tests.core.usage.usage_logs import call, make_store, write_log

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def _age(path: Path, days: int) -> None:
    stamp = (NOW - timedelta(days=days)).timestamp()
    os.utime(path, (stamp, stamp))


def _reasons(items: list[staleness.StaleItem]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for item in items:
        out.setdefault(item.name, set()).add(item.reason)
    return out


def test_usage_rules(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    names = {"read-daily": "x", "never-read": "y", "fresh": "z", "pillar": "w"}
    store, key = make_store(tmp_path / "memory", str(project), names)
    ws = store.root / "workspaces" / key
    for name, days in {"read-daily": 400, "never-read": 200, "fresh": 5, "pillar": 500}.items():
        _age(ws / f"{name}.md", days)
    # Before any ledger exists, the usage rules stay quiet and "old" is only about change.
    before = _reasons(staleness.scan(store, now=NOW).items)
    assert before == {"read-daily": {"old"}, "never-read": {"old"}, "pillar": {"old"}}
    sessions = tmp_path / "sessions"
    events = [call(1, "read", {"file_path": f"{ws}/read-daily.md"})]
    write_log(sessions, "s1", str(project), events)
    UsageLedger(store, sessions, quiet_seconds=0).update()
    for _ in range(12):
        note_served(store, key, ["pillar"], "memory_read", "agent")
    scan = staleness.scan(store, now=NOW, older_than_days=180)
    reasons = _reasons(scan.items)
    # read-daily: read by an agent (the log's time is 2026-07, within 180 days of NOW): not "old".
    assert "read-daily" not in reasons
    assert reasons["never-read"] == {"old", "never-used"}
    assert "fresh" not in reasons  # 5 days old: too young to say it is never used
    assert reasons["pillar"] == {"used-unchanged"}  # served 12 times (just now), unchanged for 500 days
    item = next(i for i in scan.items if i.reason == "used-unchanged")
    assert item.uses == 12 and item.days == 500 and item.last_used_days is not None
    never = next(i for i in scan.items if i.reason == "never-used")
    assert never.detail == "never used since created (200 days)" and never.uses == 0 and never.last_used_days is None
