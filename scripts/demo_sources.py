"""Other DSH memory stores beside the demo root, for screenshots (issue 12): workspace memory with
active, superseded, conflicting and deleted entries (English and Chinese), an archived scope and a
stale one, cross-workspace notes, Claude Code memory and one malformed scope. Written in the
formats those stores use (the fixture builders of tests/core/sources), under a temp HOME/DSH_HOME."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.sources.claude_code import encode_project
from tests.core.sources.sources_support import _item, wm_entry, wm_scope, write_json


def build_demo_sources(home: Path, dsh_home: Path, memory_root: Path, projects: Path) -> None:
    atlas, lumen = str(projects / "atlas-web"), str(projects / "lumen-desktop")
    wm = dsh_home / "workspace-memory"
    wm_scope(wm, "", [wm_entry("mem-000000000001", "preference", "Answer concisely", "Short, direct answers.")])
    wm_scope(
        wm,
        atlas,
        [
            wm_entry("mem-a00000000001", "decision", "Release branches", "Release branches are named release/x.y."),
            wm_entry(
                "mem-a00000000002",
                "fact",
                "Old CI runner",
                "CI runs on the self-hosted runner ci-01.",
                status="superseded",
                supersededBy=["mem-a00000000003"],
            ),
            wm_entry("mem-a00000000003", "fact", "CI runner", "CI runs on GitHub-hosted ubuntu-24.04 runners."),
            wm_entry(
                "mem-a00000000004",
                "rule",
                "Squash merges",
                "Always squash-merge.",
                status="conflict",
                conflictGroupId="cg-1",
            ),
            wm_entry(
                "mem-a00000000005",
                "rule",
                "Merge commits",
                "Keep merge commits on release branches.",
                status="conflict",
                conflictGroupId="cg-1",
            ),
            wm_entry("mem-a00000000006", "fix", "Flaky e2e test", "Retried the checkout e2e test.", status="deleted"),
        ],
    )
    wm_scope(
        wm,
        lumen,
        [
            wm_entry("mem-b00000000001", "decision", "签名证书", "macOS 签名证书放在钥匙串里，CI 用临时钥匙串。"),
            wm_entry("mem-b00000000002", "fact", "打包目录", "先用 --dir 验证打包结果，再出安装包。"),
        ],
    )
    gone = str(projects / "old-prototype")
    wm_scope(
        wm,
        gone,
        [
            wm_entry("mem-c00000000001", "fact", "Prototype stack", "The prototype used Svelte and a Go backend."),
            wm_entry("mem-c00000000002", "decision", "原型结论", "原型验证了离线同步可行。"),
        ],
        archived=True,
    )
    wm_scope(wm, str(projects / "retired-tool"), [wm_entry("mem-d00000000001", "fact", "Retired", "No longer used.")])
    broken = wm_scope(wm, str(projects / "half-written"), [])
    (broken / "memory_entries.json").write_text("[{not json", encoding="utf-8")

    write_json(
        memory_root / "memory.json",
        {
            "version": 1,
            "items": [
                _item("n1", "decision", "Chose Playwright over Cypress for atlas-web e2e tests", atlas),
                _item("n2", "偏好", "回答时先给结论，再给理由。", ""),
                _item("n3", "决策", "安装包体积控制在 120 MB 以内。", lumen),
            ],
        },
    )
    folder = home / ".claude" / "projects" / encode_project(atlas) / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "MEMORY.md").write_text("- [Test style](feedback_tests.md) — how tests are written\n", encoding="utf-8")
    (folder / "feedback_tests.md").write_text(
        "---\nname: test-style\ndescription: e2e tests use real browsers\ntype: feedback\n---\n\n"
        "End-to-end tests run real browsers, never mocked network calls.\n",
        encoding="utf-8",
    )
