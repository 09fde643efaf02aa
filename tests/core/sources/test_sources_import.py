"""Import through review: dry run writes nothing, apply commits with receipts, re-running is idempotent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sources_support import World

from core.models import PutOp, Record
from core.sources.claude_code import encode_project
from core.sources.naming import kebab_name, unique_name
from core.store.files import RECEIPTS

KINDS = ("workspace-memory", "cross-workspace", "project-memory", "claude-code")


def _review_for(data: dict[str, Any], cwd: str) -> dict[str, Any]:
    return next(r for r in data["reviews"] if r["cwd"] == cwd)


def _targets(review: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["target"]: c for c in review["changes"]}


@pytest.mark.parametrize("kind", KINDS)
def test_a_dry_run_writes_nothing_anywhere(world: World, cli: Any, kind: str) -> None:
    before = world.all_state()
    code, data = cli("import", kind)
    assert code == 0
    assert data["reviews"], data
    for review in data["reviews"]:
        assert {"review_id", "reused", "status", "changes", "receipt"} <= set(review)
        assert review["receipt"]["consolidator"] == f"import:{kind}"
    assert world.all_state() == before  # bytes and mtimes of both stores (and of HOME) unchanged
    assert not (world.root / "reviews").exists()


def test_workspace_memory_import_follows_the_rules(world: World, cli: Any) -> None:
    code, data = cli("import", "workspace-memory")
    assert code == 0
    alpha = _targets(_review_for(data, world.alpha))
    assert set(alpha) == {
        "use-pnpm.md",
        "zhongwen-tijiao-xinxi.md",  # a Chinese title, through pinyin
        "dev-port.md",
        "tabs.md",
        "spaces.md",
        "docs.md",
        "ci-token.md",
        "layers.md",
    }  # never the superseded (old-port) nor the deleted entry
    assert "type: feedback" in alpha["zhongwen-tijiao-xinxi.md"]["diff"]  # preference -> feedback
    assert "type: project" in alpha["use-pnpm.md"]["diff"]  # decision -> project
    assert "type: reference" in alpha["docs.md"]["diff"]  # a URL-only fact -> reference
    assert any("conflicts with mem-aaaaaaaaaa06 'Spaces'" in w for w in alpha["tabs.md"]["warnings"])
    assert any("conflicts with mem-aaaaaaaaaa05 'Tabs'" in w for w in alpha["spaces.md"]["warnings"])
    assert alpha["ci-token.md"]["problems"] and not alpha["ci-token.md"]["actionable"]  # secrets refused
    skipped = {s["id"]: s["reason"] for s in data["skipped"]}
    assert skipped["mem-aaaaaaaaaa03"].startswith("superseded: superseded by mem-aaaaaaaaaa04")
    assert skipped["mem-aaaaaaaaaa07"].startswith("deleted")
    glob = next(r for r in data["reviews"] if r["receipt"]["workspace_key"] == "global")
    [change] = glob["changes"]
    assert change["kind"] == "replace_global" and change["needs_confirmation"]
    assert "+- I prefer short, direct answers." in change["diff"]


def test_apply_commits_with_receipts_and_a_rerun_shows_them(world: World, cli: Any) -> None:
    foreign = world.foreign_state()
    code, data = cli("import", "workspace-memory", "--apply")
    assert code == 0
    store = world.store()
    alpha = store.find_workspace(world.alpha)
    assert alpha is not None
    names = {r.name for r in alpha.records()}
    assert {"use-pnpm", "zhongwen-tijiao-xinxi", "tabs", "spaces", "docs", "layers"} <= names
    assert "ci-token" not in names and "old-port" not in names
    assert "mem-aaaaaaaaaa01" in next(r for r in alpha.records() if r.name == "use-pnpm").body
    beta = store.find_workspace(world.beta)
    assert beta is not None and [r.name for r in beta.records()] == ["dabao-gongju"]
    assert not store.read_global().exists  # Global needs --accept-global
    statuses = {r["cwd"]: r["status"] for r in data["reviews"]}
    assert statuses[world.alpha] == "committed"
    receipts = {rid: store.files(RECEIPTS).read(rid) for rid in store.files(RECEIPTS).list()}
    assert receipts and all("import:workspace-memory" in text for text in receipts.values() if text)
    assert world.foreign_state() == foreign  # the foreign store was only read

    ours = world.all_state()
    code, again = cli("import", "workspace-memory", "--apply")
    assert code == 0
    workspace_reviews = [r for r in again["reviews"] if r["receipt"]["workspace_key"] != "global"]
    assert workspace_reviews and all(r["reused"] for r in workspace_reviews)
    assert {r["review_id"] for r in workspace_reviews} <= set(receipts)
    assert world.all_state() == ours  # idempotent: nothing written the second time

    code, _with_global = cli("import", "workspace-memory", "--apply", "--accept-global")
    assert code == 0
    assert "I prefer short, direct answers." in world.store().read_global().text
    code, once_more = cli("import", "workspace-memory", "--apply", "--accept-global")
    assert all(r["reused"] for r in once_more["reviews"])


def test_entries_already_in_memory_become_no_change(world: World, cli: Any) -> None:
    store = world.store()
    snap = store.create_workspace(world.alpha)
    mine = Record(
        name="build-tool",
        description="Build tool",
        type="project",
        body="\nThe alpha project builds with pnpm, never npm.\n",
    )
    store.commit(snap.key, [PutOp(record=mine)], snap.revision)
    _code, data = cli("import", "workspace-memory")
    rows = _review_for(data, world.alpha)["changes"]
    dup = next(c for c in rows if c["kind"] == "no_change")
    assert "already in memory as build-tool.md" in dup["reason"]
    assert "use-pnpm.md" not in _targets(_review_for(data, world.alpha))


def test_a_changed_foreign_entry_updates_its_earlier_import(world: World, cli: Any) -> None:
    cli("import", "workspace-memory", "--apply")
    entries_file = next((world.wm_root / "scopes").glob("*/memory_entries.json"))
    import json

    from core.sources.workspace_memory import scope_key

    path = world.wm_root / "scopes" / scope_key(world.alpha) / "memory_entries.json"
    assert entries_file.exists()
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc[0]["content"] = "The alpha project builds with pnpm 9, never npm."
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    _code, data = cli("import", "workspace-memory")
    review = _review_for(data, world.alpha)
    assert not review["reused"]
    actionable = [c for c in review["changes"] if c["actionable"]]
    assert [c["target"] for c in actionable] == ["use-pnpm.md"]
    assert "imported earlier" in actionable[0]["reason"]
    assert "-The alpha project builds with pnpm, never npm." in actionable[0]["diff"]


def test_cross_workspace_import_skips_activity_and_unknown_paths(world: World, cli: Any) -> None:
    code, data = cli("import", "cross-workspace", "--apply", "--accept-global")
    assert code == 0
    skipped = {s["id"]: s["reason"] for s in data["skipped"]}
    assert "activity" in skipped["m3"] and "not a folder path" in skipped["m6"]
    alpha = world.store().find_workspace(world.alpha)
    assert alpha is not None
    names = {r.name for r in alpha.records()}
    assert names == {"chose-a-json-file-over-storagedomain", "example-com-spec", "write-the-migration-guide"}
    assert "回答时先给结论，再给理由。" in world.store().read_global().text
    beta = world.store().find_workspace(world.beta)
    assert beta is not None and [r.name for r in beta.records()] == ["xuanze-sqlite-er-bushi-json"]


def test_an_ambiguous_claude_code_folder_is_imported_only_with_cwd(world: World, cli: Any) -> None:
    code, data = cli("import", "claude-code")
    assert any(s["id"] == "project_x.md" and "--cwd" in s["reason"] for s in data["skipped"])
    target = world.ambiguous[1]
    code, data = cli("import", "claude-code", "--cwd", target, "--apply")
    assert code == 0
    snap = world.store().find_workspace(target)
    assert snap is not None and [r.name for r in snap.records()] == ["release-day"]
    other = world.store().find_workspace(world.ambiguous[0])
    assert other is not None and other.records() == []


def test_claude_code_user_facts_go_to_global_with_confirmation(world: World, cli: Any) -> None:
    code, data = cli("import", "claude-code", "--cwd", world.alpha, "--apply")
    assert code == 0 and not world.store().read_global().exists
    assert any(r["status"] == "proposed" and r["changes"][0]["needs_confirmation"] for r in data["reviews"])
    code, _data = cli("import", "claude-code", "--cwd", world.alpha, "--apply", "--accept-global")
    assert code == 0
    text = world.store().read_global().text
    assert "## Imported from Claude Code memory" in text and "data scientist" in text
    alpha = world.store().find_workspace(world.alpha)
    assert alpha is not None
    record = next(r for r in alpha.records() if r.name == "test-style")
    assert record.type == "feedback" and "**Why:** mocks hid a broken migration." in record.body


def test_import_into_an_archived_workspace_is_blocked(world: World, cli: Any) -> None:
    store = world.store()
    snap = store.create_workspace(world.beta)
    store.recycle.archive(snap.key)
    before = world.all_state()
    _code, data = cli("import", "workspace-memory", "--cwd", world.beta, "--apply")
    assert [b["cwd"] for b in data["blocked"]] == [world.beta]
    assert "Restore it first" in data["blocked"][0]["reason"]
    assert world.store().find_workspace(world.beta) is None
    assert world.all_state() == before  # no second, empty memory was started for it


def test_project_memory_from_an_explicit_path(world: World, cli: Any, tmp_path: Path) -> None:
    code, data = cli("import", "project-memory", "--path", str(Path(world.alpha) / "project_memory"))
    assert code == 0
    names = set(_targets(_review_for(data, world.alpha)))
    assert "release-builds-run-on-ci-only.md" in names and "anniu-wenzi-shiyong-dongci-kaitou.md" in names


def test_names_are_kebab_case_and_unique() -> None:
    assert kebab_name("React 18 升级计划") == "react-18-shengji-jihua"
    assert kebab_name("Café — déjà vu!") == "cafe-deja-vu"
    assert kebab_name("!!!") == ""
    assert unique_name("tabs", {"tabs", "tabs-2"}) == "tabs-3"
    assert unique_name("memory", set()) == "memory-note"
    assert unique_name("", set(), fallback="imported") == "imported"
    assert encode_project("/a/b") == "-a-b"


def test_an_unknown_claude_code_folder_is_assigned_with_path_and_cwd(world: World, cli: Any) -> None:
    folder = world.claude / "-nowhere-at-all"
    code, data = cli("import", "claude-code", "--path", str(folder), "--cwd", world.beta, "--apply")
    assert code == 0, data
    snap = world.store().find_workspace(world.beta)
    assert snap is not None and [r.name for r in snap.records()] == ["unknown-note"]
    assert snap.records()[0].type == "reference"


def test_a_global_fact_with_a_credential_is_left_out_of_global(world: World, cli: Any) -> None:
    import json

    from sources_support import TOKEN

    path = world.wm_root / "global" / "memory_entries.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc.append({**doc[0], "id": "mem-000000000002", "title": "My token", "content": f"My token is {TOKEN}"})
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, data = cli("import", "workspace-memory", "--apply", "--accept-global")
    assert code == 0
    text = world.store().read_global().text
    assert "I prefer short, direct answers." in text and TOKEN not in text
    assert any(s["id"] == "mem-000000000002" and "credential" in s["reason"] for s in data["skipped"])
