"""Receipts and debug logs never hold conversation text or memory bodies.

A unique marker is planted in the session (prompt, assistant text, title), in the existing records and
in Global; the model echoes it in every free-text field it can (reasons, summary, a malformed first
answer). After runs and commits with debug logging on, the marker may only appear in memory itself
(GLOBAL.md, the workspace's files and the history of overwritten records).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from consolidation_support import CWD, ChatServer, Reply, chat_body, write_dsh_session

from core.consolidation import ConsolidationService
from core.model_catalog import ModelCatalog
from core.models import PutOp, Record
from core.sessions import SessionCatalog
from core.settings import AppSettings
from core.store.fs import FileStore

MARKER = "QZX7-MARKER-41"
MARKER_ZH = "标记甲乙丙"


def _hits(root: Path) -> list[str]:
    """Files outside memory itself whose bytes contain a marker."""
    hits = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        in_memory = rel == "GLOBAL.md" or rel.startswith(("workspaces/", ".manager/history/"))
        if path.is_file() and not in_memory:
            data = path.read_bytes()
            if MARKER.encode() in data or MARKER_ZH.encode() in data:
                hits.append(rel)
    return hits


def _seed(store: FileStore) -> None:
    store.replace_global(f"# User Profile\n\n- Knows {MARKER}.\n", None)
    snap = store.create_workspace(CWD)
    record = Record(
        name="existing-fact",
        description=f"Mentions {MARKER}",
        type="project",
        body=f"\nThe old fact about {MARKER} and {MARKER_ZH}.\n",
    )
    store.commit(snap.key, [PutOp(record=record)], snap.revision)


def test_marker_never_leaves_memory(tmp_path: Path, chat_server: ChatServer, catalog: ModelCatalog) -> None:
    root = tmp_path / "memory"
    store = FileStore(root)
    _seed(store)
    sessions_root = tmp_path / "sessions"
    write_dsh_session(
        sessions_root,
        "sess-private",
        CWD,
        [
            (f"Remember that we deploy the shop with blue green releases via the {MARKER} pipeline.", "Noted."),
            (f"记住：发布前先跑 {MARKER_ZH} 检查。", f"好的，{MARKER_ZH}。"),
            ("I prefer tabs.", f"Sure, tabs. ({MARKER})"),
        ],
        title=f"Deploys via {MARKER}",
    )
    sessions = SessionCatalog(sessions_root)
    [summary] = sessions.list(cwd=CWD)

    # The offline extractor, debug logging on, run and committed.
    settings = AppSettings(debug_logging=True)
    service = ConsolidationService(store, catalog, settings, sessions=sessions)
    review = service.propose(service.prepare(summary), consolidator="offline")
    assert len(review.actionable) == 3
    assert service.commit(review, [c.id for c in review.actionable]).status == "committed"

    # The model: a malformed answer quoting the conversation, then a proposal full of the marker.
    echo: dict[str, Any] = {
        "summary": f"Summary quoting {MARKER}",
        "changes": [
            {
                "op": "put",
                "record": {
                    "name": "existing-fact",
                    "description": f"Now about {MARKER}",
                    "type": "project",
                    "body": f"\nRewritten with {MARKER} and {MARKER_ZH}.\n",
                },
                "reason": f"The user said {MARKER}",
                "evidence": [1],
            },
            {"op": "no_change", "reason": f"nothing else about {MARKER}", "evidence": []},
        ],
    }
    chat_server.replies += [
        Reply(body=chat_body(json.dumps({"changes": [{"op": f"remember {MARKER}", MARKER: MARKER_ZH}]}))),
        Reply(body=chat_body(json.dumps(echo))),
    ]
    model_settings = AppSettings(debug_logging=True, consolidator="model", request_timeout_seconds=10)
    model_service = ConsolidationService(store, catalog, model_settings, sessions=sessions)
    review = model_service.propose(model_service.prepare(summary))
    assert [c.kind for c in review.changes] == ["put", "no_change"] and review.changes[0].is_actionable
    assert model_service.commit(review, ["c1"]).status == "committed"
    assert len(chat_server.requests) == 2

    # A failing run too (HTTP 500 whose error text quotes nothing of ours), on a new session revision.
    chat_server.replies.append(Reply(500, b'{"error": {"message": "overloaded"}}'))
    write_dsh_session(sessions_root, "sess-private", CWD, [(f"Remember {MARKER} again.", "ok")], title=MARKER)
    [summary] = SessionCatalog(sessions_root).list(cwd=CWD)
    try:
        model_service.propose(model_service.prepare(summary))
    except Exception as exc:  # the failure itself is tested elsewhere; here only what it wrote matters
        assert MARKER not in str(exc)

    assert sorted(p.name for p in (root / "reviews").iterdir())  # receipts were written...
    assert list((root / "debug").rglob("attempt-*.jsonl"))  # ...and debug logs
    assert _hits(root) == []
    # The memory itself did change, and carries the marker where the user accepted it.
    snap = store.find_workspace(CWD)
    assert snap is not None and MARKER in snap.records()[0].body + "".join(r.body for r in snap.records())
