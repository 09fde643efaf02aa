"""Screenshot of a pending agent proposal in the Session Consolidation tab's review panel.

A stopgap until the tab lists agent proposals itself (its screenshot steps can then take this over):
builds the demo root, lets an agent (``core.mcp.agent.AgentSession``, review mode) propose two changes,
opens the proposal with ``AgentProposals.open`` and shows it with ``ConsolidationTab.show_review``.
Run: ``.venv/bin/python scripts/shot_agent_proposal.py [OUT.png]``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from core.demo import build_demo_root
from core.mcp.agent import AgentSession
from core.mcp.proposals import AgentProposals
from gui.main_window import MainWindow
from gui.widgets.fonts import apply_app_fonts
from scripts.screenshots import REPO, WINDOW_SIZE, QuietDialogs, build_context, settle


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "screenshots" / "agent-proposal-review.png"
    app = QApplication.instance() or QApplication(["shot"])
    assert isinstance(app, QApplication)
    apply_app_fonts(app)
    with tempfile.TemporaryDirectory(prefix="dsh-shot-") as tmp:
        root = Path(tmp) / "memory"
        build_demo_root(root)
        ctx = build_context(root, QuietDialogs())
        info = next(w for w in ctx.store.list_workspaces() if w.display_name == "atlas-web")
        agent = AgentSession(ctx.store, info.cwd, client="claude-code", connection="mcp-3f9c2a")
        agent.recall("release")
        snap = ctx.store.find_workspace(info.cwd)
        assert snap is not None
        old = snap.records()[0]
        body = (
            "Releases ship on Thursday afternoons, never on Fridays.\n\n**Why:** the on-call rotation changes "
            "on Friday.\n\n**How to apply:** propose release PRs so they can merge by Thursday noon."
        )
        changes = [
            {"op": "put", "name": "release-day", "description": "Releases ship on Thursday afternoons",
             "type": "project", "body": body},
            {"op": "put", "name": old.name, "description": old.description, "type": old.type,
             "body": old.body.strip() + "\n\nThe user confirmed in 2026 that this still holds."},
        ]  # fmt: skip
        answer = json.loads(agent.update(changes, "The user said releases ship on Thursdays and confirmed the note."))
        window = MainWindow(ctx, watch=False)
        window.resize(*WINDOW_SIZE)
        window.show()
        settle(200)
        window.show_tab("consolidation")
        settle()
        window.tabs["consolidation"].show_review(AgentProposals(ctx.store).open(answer["proposal_id"]))
        settle(200)
        out.parent.mkdir(parents=True, exist_ok=True)
        window.grab().save(str(out))
        window.shutdown()
        window.close()
    print(f"saved {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
