"""Screenshot steps for issue 26 (``scripts/screenshots.py`` runs them): a change that supersedes a
record under review with Replace / Keep both / Merge, the rename of a proposed record, the cited
evidence highlighted in the session transcript, and the transcript preview before a run.

The supersession comes from a real ``AgentSession`` in review mode (agent proposals go through the
same host check as every other path); the evidence from the offline rules on a demo session.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.models import DeleteOp, PutOp, Record

if TYPE_CHECKING:
    from scripts.screenshots import Shot

SESSION = "demo-session-codeword"
_RECORDS = (
    ("release-codeword", "The release codeword is MARMALADE", "The release codeword is MARMALADE."),
    ("tag-releases", "Tag releases on main", "Tag releases on main."),
)
_PROMPTS = (
    "Please bump the version and rerun the release checks.",
    "The codeword changed: it is SAFFRON now, remember that.",
    "No, releases are cut from trunk-stable, never from main.",
)


def _atlas(shot: Shot) -> Any:
    return next(w for w in shot.ctx.store.list_workspaces() if w.display_name == "atlas-web")


def _write_session(root: Path, cwd: str) -> None:
    t0 = int(time.time() * 1000) - 2 * 3600 * 1000
    rows: list[dict[str, Any]] = [{"type": "session", "version": 1, "id": SESSION, "createdAt": t0, "cwd": cwd}]
    seq = 0
    for prompt in _PROMPTS:
        for role, text in (("user", prompt), ("assistant", "Done." if seq == 0 else "Noted.")):
            message = {"role": role, "content": [{"type": "text", "text": text}], "source": {"kind": role}}
            kind = "user/message" if role == "user" else "assistant/message"
            rows.append({"type": kind, "seq": seq, "time": t0 + seq * 1000, "data": {"message": message}})
            seq += 1
            if seq == 2:  # a tool the agent ran: its name shows, never its output
                call = {"callId": "c1", "name": "bash", "arguments": "{}"}
                rows.append({"type": "tool/call", "seq": seq, "time": t0 + seq * 1000, "data": call})
                seq += 1
    rows.append({"type": "session/title", "seq": seq, "time": t0, "data": {"title": "Codeword and release branch"}})
    folder = root / ("--" + cwd.strip("/").replace("/", "-") + "--") / SESSION
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "session.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    os.utime(log, (time.time() - 3600, time.time() - 3600))


def setup(shot: Shot) -> None:
    info = _atlas(shot)
    snap = shot.ctx.store.find_workspace(info.cwd)
    assert snap is not None
    ops = [PutOp(record=Record(name=n, description=d, type="project", body=f"\n{b}\n")) for n, d, b in _RECORDS]
    shot.ctx.store.commit(snap.key, ops, snap.revision)
    _write_session(Path(shot.ctx.sessions_root), info.cwd)


def _propose(shot: Shot, query: str, change: dict[str, str], reason: str) -> None:
    """A real agent (MCP, review mode) proposes ``change``; the tab opens the proposal."""
    from core.mcp.agent import AgentSession

    info = _atlas(shot)
    agent = AgentSession(shot.ctx.store, info.cwd, client="claude-code", connection="mcp-7d1e04")
    read = agent.recall(query)
    observed = read.rstrip().splitlines()[-1].removeprefix("observed: ")  # the read's handle
    answer = json.loads(agent.update([{"op": "put", **change}], reason, observed=observed))
    tab = shot.tab("consolidation")
    tab.refresh()
    tab.choose_source("agent")
    tab.select_pending(answer["proposal_id"])
    tab.changes_view.selectRow(0)
    tab.detail_tabs.setCurrentIndex(0)


def supersede(shot: Shot) -> None:
    """An agent proposes the new codeword under a new name: "Supersedes [[release-codeword]]"."""
    change = {"name": "codeword-saffron", "description": "The release codeword is SAFFRON", "type": "project",
              "body": "The release codeword is SAFFRON."}  # fmt: skip
    _propose(shot, "codeword", change, "The user gave the new release codeword.")


def contradict(shot: Shot) -> None:
    """An agent proposes a rule that denies an existing one: "Contradicts [[tag-releases]]"."""
    change = {"name": "release-branch", "description": "Releases are cut from trunk-stable, never from main",
              "type": "project", "body": "Releases are cut from trunk-stable, never from main."}  # fmt: skip
    _propose(shot, "release", change, "The user corrected where releases are cut.")


def rename(shot: Shot) -> None:
    """Rename the proposed record: the name is checked, the diff follows it."""
    tab = shot.tab("consolidation")
    tab.changes_view.selectRow(0)
    shot.dialogs.answers.append("release-codeword-2026")
    tab.review_panel.rename_button.click()
    tab.detail_tabs.setCurrentIndex(0)


def supersede_reset(shot: Shot) -> None:
    shot.dialogs.answers.append(True)
    tab = shot.tab("consolidation")
    tab.review_panel.delete_button.click()  # reject the proposal: nothing written
    tab.choose_source("session")


def preview(shot: Shot) -> None:
    """Selecting a session shows its transcript before anything runs (tool names, never bodies)."""
    tab = shot.tab("consolidation")
    tab.show_review(None)
    tab.refresh()
    tab.choose_workspace(_atlas(shot).key)
    tab.select_session(SESSION)


def evidence(shot: Shot) -> None:
    """The offline rules update the codeword; its cited words are highlighted in the transcript."""
    tab = shot.tab("consolidation")
    tab.set_consolidator("offline")
    tab.run_selected(force=True)
    rows = tab.changes_model.change_rows()
    row = next((i for i, r in enumerate(rows) if "codeword" in r.current.target), 0)
    tab.changes_view.selectRow(row)
    tab.detail_tabs.setCurrentIndex(3)


def evidence_reset(shot: Shot) -> None:
    tab = shot.tab("consolidation")
    tab.detail_tabs.setCurrentIndex(0)
    tab.show_review(None)
    info = _atlas(shot)
    snap = shot.ctx.store.find_workspace(info.cwd)
    if snap is not None:
        ops = [DeleteOp(name=n) for n, _d, _b in _RECORDS if snap.get(n) is not None]
        if ops:
            shot.ctx.store.commit(snap.key, ops, snap.revision)


STEPS: list[tuple[str, Any]] = [
    ("_supersede-setup", setup),
    ("consolidation-supersede", supersede),
    ("consolidation-rename", rename),
    ("_supersede-reset", supersede_reset),
    ("consolidation-contradict", contradict),
    ("_contradict-reset", supersede_reset),
    ("consolidation-transcript-preview", preview),
    ("consolidation-evidence", evidence),
    ("_evidence-reset", evidence_reset),
]
