"""Detection and browsing: every store kind found, read-only, problems reported, statuses shown."""

from __future__ import annotations

import hashlib
from typing import Any

from sources_support import World, tree_state

from core.sources.claude_code import encode_project
from core.sources.discovery import SourcePaths, discover
from core.sources.workspace_memory import scope_key


def _discover(world: World) -> Any:
    return discover(SourcePaths.from_env(memory_root=world.root), world.store())


def test_key_rule_matches_the_workspace_memory_store() -> None:
    def sha(text: str) -> str:
        return "ws-" + hashlib.sha256(text.encode()).hexdigest()[:20]

    assert scope_key("/home/me/proj", windows=False) == sha("/home/me/proj")
    assert scope_key("/home/me/proj/", windows=False) == sha("/home/me/proj")
    assert scope_key("D:\\Work\\Proj\\", windows=False) == sha("D:/Work/Proj")
    assert scope_key("D:\\Work\\Proj", windows=True) == sha("d:/work/proj")
    assert scope_key("/home/me/Proj", windows=False) != scope_key("/home/me/proj", windows=False)


def test_claude_code_folder_encoding() -> None:
    assert encode_project("/home/me/my.app") == "-home-me-my-app"
    assert encode_project("C:\\Users\\me\\项目") == "C--Users-me---"


def test_every_kind_is_found_with_paths_counts_and_problems(world: World, cli: Any) -> None:
    before = world.all_state()
    code, data = cli("sources")
    assert code == 0
    by_kind = {s["kind"]: s for s in data["sources"]}
    assert set(by_kind) == {"markdown", "workspace-memory", "cross-workspace", "project-memory", "claude-code"}
    for s in data["sources"]:
        assert {"kind", "path", "scopes", "entries", "problems"} <= set(s)
    wm = by_kind["workspace-memory"]
    assert wm["path"] == str(world.wm_root)
    # global + alpha + beta + vanished + broken are active scopes; one archived; the mismatched key is not a scope
    assert wm["scopes"] == 5 and wm["archived_scopes"] == 1
    reasons = " | ".join(p["reason"] for p in wm["problems"])
    assert "not valid JSON" in reasons and "not the folder name" in reasons
    assert by_kind["cross-workspace"]["path"] == str(world.root / "memory.json")
    assert by_kind["cross-workspace"]["entries"] == 7
    pm = by_kind["project-memory"]
    assert pm["path"].endswith("alpha/project_memory")
    pm_reasons = " | ".join(p["reason"] for p in pm["problems"])
    assert "not understood: doctrine.md, graph.json" in pm_reasons
    assert "vec/ (vectors)" in pm_reasons and "process log(s) skipped" in pm_reasons
    assert "not valid JSON" in pm_reasons  # sp2/manifest.json
    cc = by_kind["claude-code"]
    cc_reasons = " | ".join(p["reason"] for p in cc["problems"])
    assert "not valid YAML" in cc_reasons and "missing.md, which does not exist" in cc_reasons
    assert "ambiguous: could be" in cc_reasons and "unknown: no known workspace" in cc_reasons
    assert world.all_state() == before  # looking wrote nothing, in any store


def test_browse_shows_foreign_entries_of_a_workspace_with_their_status(world: World, cli: Any) -> None:
    code, data = cli("sources", "--cwd", world.alpha)
    assert code == 0
    entries = {(e["source"], e["id"]): e for e in data["entries"]}
    superseded = entries[("workspace-memory", "mem-aaaaaaaaaa03")]
    assert superseded["status"] == "superseded"
    assert superseded["status_detail"] == "superseded by mem-aaaaaaaaaa04 'Dev port'"
    tabs = entries[("workspace-memory", "mem-aaaaaaaaaa05")]
    assert tabs["status"] == "conflict" and "mem-aaaaaaaaaa06 'Spaces'" in tabs["status_detail"]
    assert entries[("workspace-memory", "mem-aaaaaaaaaa07")]["status"] == "deleted"
    assert entries[("workspace-memory", "mem-aaaaaaaaaa10")]["status"] == "active"  # missing status = active
    assert entries[("workspace-memory", "mem-aaaaaaaaaa02")]["title"] == "中文提交信息"
    assert ("cross-workspace", "m3") in entries  # activity is shown, only import skips it
    assert ("claude-code", "feedback_tests.md") in entries
    assert any(
        src == "project-memory" and e["text"] == "Artifacts go to dist/,\nnever to build/."
        for (src, _), e in entries.items()
    )
    labels = {e["label"] for e in data["entries"]}
    assert labels == {"DSH workspace memory", "DSH cross-workspace notes", "DSH project memory", "Claude Code memory"}


def test_archived_scopes_are_listed_but_their_entries_are_not_browsed(world: World) -> None:
    found = _discover(world)
    wm = found.of_kind("workspace-memory")[0]
    archived = [s for s in wm.scopes if s.archived]
    assert [s.cwd for s in archived] == [world.gone]
    assert found.entries_for(world.gone) == []


def test_claude_code_folders_map_to_known_workspaces_or_need_the_user(world: World) -> None:
    cc = _discover(world).of_kind("claude-code")[0]
    scopes = {s.key: s for s in cc.scopes}
    assert scopes[encode_project(world.alpha)].cwd == world.alpha
    amb = scopes[encode_project(world.ambiguous[0])]
    assert amb.cwd is None and set(amb.candidates) == set(world.ambiguous)
    assert scopes["-nowhere-at-all"].cwd is None and scopes["-nowhere-at-all"].candidates == ()
    chosen = discover(SourcePaths.from_env(memory_root=world.root), world.store(), claude_cwd=world.ambiguous[1])
    amb2 = {s.key: s for s in chosen.of_kind("claude-code")[0].scopes}[encode_project(world.ambiguous[0])]
    assert amb2.cwd == world.ambiguous[1]


def test_project_memory_entries_come_from_core_and_regular_funnels(world: World) -> None:
    pm = _discover(world).of_kind("project-memory")[0]
    texts = {(e.title, e.kind, e.text) for e in pm.entries}
    assert ("Build pipeline", "core", "Release builds run on CI only.") in texts
    assert ("Build pipeline", "regular", "Old builds are pruned by a cron job.") in texts
    assert ("界面约定", "core", "按钮文字使用动词开头。") in texts
    assert all("raw log" not in e.text for e in pm.entries)
    assert [s.note for s in pm.scopes] == ["Alpha app"]


def test_a_broken_cross_workspace_file_is_reported_and_left_alone(world: World, cli: Any) -> None:
    path = world.root / "memory.json"
    path.write_bytes(b'{"version": 1, "items": [')
    before = tree_state(path)
    _code, data = cli("sources")
    cw = next(s for s in data["sources"] if s["kind"] == "cross-workspace")
    assert cw["entries"] == 0 and "not valid JSON" in cw["problems"][0]["reason"]
    assert tree_state(path) == before


def test_funnel_files_split_into_list_items_and_paragraphs() -> None:
    from core.sources.project_memory import split_entries

    text = "---\nid: x\n---\n# Title\n\n- one\n  continued\n- two\n\nA paragraph\nover two lines.\n\n1. three\n"
    assert split_entries(text) == ["one\ncontinued", "two", "A paragraph\nover two lines.", "three"]


def test_cross_workspace_chinese_kind_aliases() -> None:
    from core.sources.cross_workspace import canonical_kind

    assert [canonical_kind(k) for k in ("偏好", "决策", "项目", "事实", "待办", "进度", "Decision")] == [
        "preference",
        "decision",
        "project",
        "fact",
        "todo",
        "activity",
        "decision",
    ]


def test_the_import_command_offers_every_importable_kind() -> None:
    from core.cli.source_commands import IMPORT_KINDS
    from core.sources.models import IMPORTABLE_KINDS

    assert IMPORT_KINDS == IMPORTABLE_KINDS


def test_project_memory_is_found_in_the_cwd_of_a_dsh_session(world: World) -> None:
    import json
    from pathlib import Path

    cwd = Path(world.alpha).parent / "only-in-a-session"
    (cwd / "project_memory" / "sp").mkdir(parents=True)
    (cwd / "project_memory" / "sp" / "manifest.json").write_text('{"schema": 3, "nodes": []}', encoding="utf-8")
    header = {"type": "session", "version": 0, "id": "s-1", "createdAt": 1761000000000, "cwd": str(cwd)}
    prompt = {
        "type": "user/message",
        "seq": 1,
        "time": 1761000001000,
        "data": {"content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}, "role": "user", "id": "u1"},
    }
    folder = world.dsh_home / "sessions" / "--only-in-a-session--" / "s-1"
    folder.mkdir(parents=True)
    (folder / "session.jsonl").write_text(json.dumps(header) + "\n" + json.dumps(prompt) + "\n", encoding="utf-8")
    found = _discover(world)
    assert str(cwd) in found.known_cwds
    assert str(cwd / "project_memory") in {s.path for s in found.of_kind("project-memory")}


def test_the_cli_runs_as_a_real_process(world: World) -> None:
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "HOME": str(world.home), "DSH_HOME": str(world.dsh_home)}
    repo = Path(__file__).resolve().parents[3]
    proc = subprocess.run(
        [sys.executable, "-m", "core.cli.main", "import", "workspace-memory", "--cwd", world.beta, "--json"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    [review] = [r for r in data["reviews"] if r["cwd"] == world.beta]
    assert [c["target"] for c in review["changes"]] == ["dabao-gongju.md"]
