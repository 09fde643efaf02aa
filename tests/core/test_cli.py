"""The store commands of ``dsh-memory``, run in-process on temp roots (and twice as a real process)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core.cli.main import main
from core.keys import workspace_key
from core.models import EMPTY_REVISION

REPO = Path(__file__).resolve().parents[2]

RECORD = """\
---
name: {name}
description: {description}
metadata:
  type: {type}
---

{body}

**Why:** It broke CI once.

**How to apply:** Check before installing anything.
"""


def run(root: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(["--root", str(root), *argv], stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


def run_json(root: Path, *argv: str) -> tuple[int, Any]:
    rc, out, _ = run(root, "--json", *argv)
    return rc, json.loads(out)


def record_file(
    tmp_path: Path, name: str = "build-tips", body: str = "Use pnpm, never npm.", **kw: str
) -> Path:
    path = tmp_path / f"draft-{name}-{len(list(tmp_path.glob('draft-*')))}.md"
    fields = {"name": name, "description": "How the project is built", "type": "project", "body": body, **kw}
    path.write_text(RECORD.format(**fields), encoding="utf-8")
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "memory"


@pytest.fixture
def cwd(tmp_path: Path) -> str:
    project = tmp_path / "projects" / "atlas-web"
    project.mkdir(parents=True)
    return str(project)


def put(root: Path, cwd: str, file: Path, *extra: str) -> tuple[int, Any]:
    return run_json(root, "put", "--cwd", cwd, "--file", str(file), *extra)


# --- reading ------------------------------------------------------------------------------------


def test_status_of_an_empty_root(root: Path) -> None:
    rc, data = run_json(root, "status")
    assert rc == 0
    assert data == {
        "root": str(root),
        "total_bytes": 0,
        "workspace_count": 0,
        "archived_count": 0,
        "global_size": 0,
        "read_only": False,
        "quarantined": 0,
    }
    rc, out, _ = run(root, "status")
    assert rc == 0 and f"Memory root: {root}" in out and "0 active, 0 archived" in out


def test_put_creates_the_workspace_and_show_lists_the_record(root: Path, cwd: str, tmp_path: Path) -> None:
    rc, data = put(root, cwd, record_file(tmp_path))
    assert rc == 0
    assert data["created_workspace"] is True and data["action"] == "added" and data["name"] == "build-tips"
    assert data["workspace"] == workspace_key(cwd)
    # Saved under the record's name, whatever the draft file was called.
    assert (root / "workspaces" / data["workspace"] / "build-tips.md").is_file()

    rc, shown = run_json(root, "show", "--cwd", cwd)
    assert rc == 0
    assert shown["revision"] == data["revision"] and shown["archived"] is False
    assert shown["workspace"]["cwd"] == cwd and shown["workspace"]["name"] == "atlas-web"
    [rec] = shown["records"]
    assert rec["name"] == "build-tips" and rec["type"] == "project" and rec["valid"] is True
    assert "Use pnpm, never npm." in rec["body"]
    assert "- [build-tips](build-tips.md) — How the project is built" in shown["index"]

    rc, by_key = run_json(root, "show", "--key", data["workspace"])
    assert by_key == shown

    rc, out, _ = run(root, "show", "--cwd", cwd)
    assert rc == 0 and "- build-tips [project] — How the project is built" in out and data["revision"] in out


def test_workspaces_lists_active_and_flags_a_missing_cwd(root: Path, cwd: str, tmp_path: Path) -> None:
    put(root, cwd, record_file(tmp_path))
    gone = str(tmp_path / "projects" / "gone")
    put(root, gone, record_file(tmp_path, name="old-notes"))
    rc, data = run_json(root, "workspaces")
    assert rc == 0 and data["archived"] is False
    by_name = {w["name"]: w for w in data["workspaces"]}
    assert by_name["atlas-web"]["cwd_exists"] is True and by_name["atlas-web"]["record_count"] == 1
    assert by_name["gone"]["cwd_exists"] is False
    rc, out, _ = run(root, "workspaces")
    assert "2 active workspaces" in out and "[cwd missing]" in out and "1 record," in out


def test_empty_listings_say_so(root: Path) -> None:
    assert "No workspaces yet" in run(root, "workspaces")[1]
    assert "No workspaces in the Recycle Bin" in run(root, "workspaces", "--archived")[1]


def test_json_flag_is_accepted_after_the_command(root: Path) -> None:
    out = io.StringIO()
    assert main(["--root", str(root), "status", "--json"], stdout=out) == 0
    assert json.loads(out.getvalue())["workspace_count"] == 0


# --- put / delete / history -----------------------------------------------------------------------


def test_put_with_expect_updates_and_keeps_history(root: Path, cwd: str, tmp_path: Path) -> None:
    _, first = put(root, cwd, record_file(tmp_path))
    rc, second = put(
        root, cwd, record_file(tmp_path, body="Use pnpm; never npm or yarn."), "--expect", first["revision"]
    )
    assert rc == 0 and second["action"] == "updated" and second["created_workspace"] is False

    rc, hist = run_json(root, "history", "--cwd", cwd, "--name", "build-tips")
    assert rc == 0
    assert "never npm or yarn" in hist["current"]["content"]
    [old] = hist["versions"]
    assert old["reason"] == "overwrite" and "Use pnpm, never npm." in old["content"] and old["time"]
    rc, out, _ = run(root, "history", "--cwd", cwd, "--name", "build-tips")
    assert "== current" in out and "overwrite" in out and "Use pnpm, never npm." in out


def test_putting_the_same_record_again_changes_nothing(root: Path, cwd: str, tmp_path: Path) -> None:
    f = record_file(tmp_path)
    _, first = put(root, cwd, f)
    rc, again = put(root, cwd, f, "--expect", first["revision"])
    assert rc == 0 and again["action"] == "unchanged" and again["revision"] == first["revision"]
    assert run_json(root, "history", "--cwd", cwd, "--name", "build-tips")[1]["versions"] == []


def test_stale_expect_is_a_conflict_and_writes_nothing(root: Path, cwd: str, tmp_path: Path) -> None:
    _, first = put(root, cwd, record_file(tmp_path))
    put(root, cwd, record_file(tmp_path, name="second-note"))
    path = root / "workspaces" / first["workspace"] / "build-tips.md"
    before = path.read_bytes()
    rc, data = put(root, cwd, record_file(tmp_path, body="Changed."), "--expect", first["revision"])
    assert rc == 5  # conflict
    assert data["error"]["code"] == "conflict" and data["error"]["current_revision"] != first["revision"]
    assert path.read_bytes() == before
    rc, out, err = run(root, "put", "--cwd", cwd, "--file", str(record_file(tmp_path)), "--expect", "0123")
    assert rc == 5 and out == "" and err.startswith("error: ") and "Nothing was written" in err


def test_expect_on_a_workspace_that_does_not_exist_is_a_conflict(
    root: Path, cwd: str, tmp_path: Path
) -> None:
    rc, data = put(root, cwd, record_file(tmp_path), "--expect", "abcdef0123456789")
    assert rc == 5 and data["error"]["code"] == "conflict"
    assert not (root / "workspaces").exists() or not any((root / "workspaces").iterdir())
    rc, data = put(root, cwd, record_file(tmp_path), "--expect", EMPTY_REVISION)
    assert rc == 0 and data["created_workspace"] is True


def test_invalid_record_is_refused_with_every_reason(root: Path, cwd: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.md"
    bad.write_text(
        "---\nname: Bad Name\ndescription: ''\nmetadata:\n  type: idea\n---\nbody\n", encoding="utf-8"
    )
    rc, data = put(root, cwd, bad)
    assert rc == 6 and data["error"]["code"] == "invalid"
    reasons = " ".join(data["error"]["reasons"])
    assert "kebab-case" in reasons and "idea" in reasons and "description" in reasons
    assert run_json(root, "workspaces")[1]["workspaces"] == []  # no empty scope left behind
    rc, _, err = run(root, "put", "--cwd", cwd, "--file", str(bad))
    assert rc == 6 and "bad.md is not a valid record" in err and "  - " in err


def test_non_utf8_record_file_is_invalid(root: Path, cwd: str, tmp_path: Path) -> None:
    bad = tmp_path / "latin1.md"
    bad.write_bytes("---\nname: caf\xe9\n---\n".encode("latin-1"))
    rc, data = put(root, cwd, bad)
    assert rc == 6 and data["error"]["code"] == "invalid"


def test_secrets_are_refused_unless_allowed(root: Path, cwd: str, tmp_path: Path) -> None:
    leaky = record_file(tmp_path, body="export DEEPSEEK_API_KEY=sk-" + "3f9a8b7c6d5e4f30a1b2c3d4e5f6a7b8")
    rc, data = put(root, cwd, leaky)
    assert rc == 7 and data["error"]["code"] == "secret"
    assert any("API key" in f for f in data["error"]["findings"])
    assert "sk-3f9a" not in json.dumps(data)  # the value is never echoed
    assert run_json(root, "workspaces")[1]["workspaces"] == []
    rc, data = put(root, cwd, leaky, "--allow-secrets")
    assert rc == 0


def test_secrets_in_an_existing_workspace_are_refused_by_the_store(
    root: Path, cwd: str, tmp_path: Path
) -> None:
    put(root, cwd, record_file(tmp_path))
    leaky = record_file(tmp_path, name="db-url", body="DATABASE_URL=postgres://app:s3cr3tPass@db:5432/app")
    rc, data = put(root, cwd, leaky)
    assert rc == 7 and data["error"]["code"] == "secret"


def test_put_file_that_does_not_exist_is_not_found(root: Path, cwd: str, tmp_path: Path) -> None:
    rc, data = put(root, cwd, tmp_path / "nope.md")
    assert rc == 4 and data["error"]["code"] == "not_found" and "nope.md" in data["error"]["message"]


def test_put_reads_stdin_with_dash(
    root: Path, cwd: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = record_file(tmp_path).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    rc, out = run_json(root, "put", "--cwd", cwd, "--file", "-")
    assert rc == 0 and out["name"] == "build-tips"


def test_delete_removes_the_record_and_history_keeps_it(root: Path, cwd: str, tmp_path: Path) -> None:
    _, first = put(root, cwd, record_file(tmp_path))
    rc, data = run_json(root, "delete", "--cwd", cwd, "--name", "build-tips", "--expect", first["revision"])
    assert rc == 0 and data["name"] == "build-tips"
    assert run_json(root, "show", "--cwd", cwd)[1]["records"] == []
    rc, hist = run_json(root, "history", "--cwd", cwd, "--name", "build-tips")
    assert hist["current"] is None and hist["versions"][0]["reason"] == "delete"
    assert "== current: deleted" in run(root, "history", "--cwd", cwd, "--name", "build-tips")[1]


def test_delete_errors(root: Path, cwd: str, tmp_path: Path) -> None:
    rc, data = run_json(root, "delete", "--cwd", cwd, "--name", "build-tips")
    assert (
        rc == 4 and data["error"]["code"] == "not_found" and "No active workspace" in data["error"]["message"]
    )
    _, first = put(root, cwd, record_file(tmp_path))
    rc, data = run_json(root, "delete", "--cwd", cwd, "--name", "nothing-here")
    assert rc == 4 and data["error"]["code"] == "not_found" and "build-tips" in data["error"]["message"]
    put(root, cwd, record_file(tmp_path, name="other"))
    rc, data = run_json(root, "delete", "--cwd", cwd, "--name", "build-tips", "--expect", first["revision"])
    assert rc == 5 and data["error"]["code"] == "conflict"


def test_history_of_an_unknown_record_is_not_found(root: Path, cwd: str) -> None:
    rc, data = run_json(root, "history", "--cwd", cwd, "--name", "never-existed")
    assert rc == 4 and data["error"]["code"] == "not_found"


def test_history_of_a_record_never_overwritten_shows_only_current(
    root: Path, cwd: str, tmp_path: Path
) -> None:
    put(root, cwd, record_file(tmp_path))
    rc, hist = run_json(root, "history", "--cwd", cwd, "--name", "build-tips")
    assert rc == 0 and hist["versions"] == [] and hist["current"] is not None
    assert "No earlier versions" in run(root, "history", "--cwd", cwd, "--name", "build-tips")[1]


# --- global -------------------------------------------------------------------------------------------


def test_global_show_and_set_with_cas(root: Path, tmp_path: Path) -> None:
    rc, g = run_json(root, "global", "show")
    assert rc == 0 and g["exists"] is False and g["revision"] == EMPTY_REVISION
    assert "No GLOBAL.md yet" in run(root, "global", "show")[1]

    text = "# Global\n\n## User Preferences\n\n- 回答简短。\n"
    f = tmp_path / "global.md"
    f.write_text(text, encoding="utf-8")
    rc, saved = run_json(root, "global", "set", "--file", str(f), "--expect", g["revision"])
    assert rc == 0 and saved["size"] == len(text.encode("utf-8"))
    assert (root / "GLOBAL.md").read_text(encoding="utf-8") == text

    rc, g2 = run_json(root, "global", "show")
    assert g2["text"] == text and g2["revision"] == saved["revision"] and g2["exists"] is True
    rc, out, _ = run(root, "global", "show")
    assert out.startswith(f"# GLOBAL.md — revision {saved['revision']}") and "回答简短" in out

    rc, data = run_json(root, "global", "set", "--file", str(f), "--expect", EMPTY_REVISION)
    assert rc == 5 and data["error"]["code"] == "conflict"

    f.write_text(text + "- token: ghp_" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\n", encoding="utf-8")
    rc, data = run_json(root, "global", "set", "--file", str(f), "--expect", saved["revision"])
    assert rc == 7 and data["error"]["code"] == "secret"
    assert (root / "GLOBAL.md").read_text(encoding="utf-8") == text


def test_global_set_requires_expect(root: Path, tmp_path: Path) -> None:
    f = tmp_path / "g.md"
    f.write_text("x\n", encoding="utf-8")
    rc, data = run_json(root, "global", "set", "--file", str(f))
    assert rc == 2 and data["error"]["code"] == "usage" and "--expect" in data["error"]["message"]


# --- Recycle Bin ----------------------------------------------------------------------------------------


def test_archive_restore_purge(root: Path, cwd: str, tmp_path: Path) -> None:
    _, first = put(root, cwd, record_file(tmp_path))
    key = first["workspace"]
    rec = root / "workspaces" / key / "build-tips.md"
    original = rec.read_bytes()

    rc, data = run_json(root, "archive", "--cwd", cwd)
    assert rc == 0 and data["archived"]["key"] == key and data["archived"]["archived_at"]
    assert run_json(root, "workspaces")[1]["workspaces"] == []
    [archived] = run_json(root, "workspaces", "--archived")[1]["workspaces"]
    assert archived["key"] == key
    assert "archived " in run(root, "workspaces", "--archived")[1]
    shown = run_json(root, "show", "--key", key)[1]
    assert shown["archived"] is True and shown["records"][0]["name"] == "build-tips"
    assert "(archived, in the Recycle Bin)" in run(root, "show", "--cwd", cwd)[1]

    rc, data = run_json(root, "restore", "--key", key)
    assert rc == 0 and data["restored"]["key"] == key
    assert rec.read_bytes() == original

    assert run(root, "archive", "--key", key)[0] == 0
    rc, data = run_json(root, "purge", "--key", key, "--confirm", "wrong-name")
    assert (
        rc == 8
        and data["error"]["code"] == "confirmation_required"
        and "atlas-web" in data["error"]["message"]
    )
    rc, data = run_json(root, "purge", "--key", key)
    assert rc == 8 and data["error"]["code"] == "confirmation_required"
    assert run_json(root, "workspaces", "--archived")[1]["workspaces"]  # still there

    rc, data = run_json(root, "purge", "--key", key, "--confirm", "atlas-web")
    assert rc == 0 and data == {"purged": key, "sync_history_rewritten": False}  # never synced: no history to rewrite
    assert run_json(root, "workspaces", "--archived")[1]["workspaces"] == []
    rc, data = run_json(root, "show", "--key", key)
    assert rc == 4 and data["error"]["code"] == "not_found"


def test_put_into_an_archived_workspace_asks_for_a_restore(root: Path, cwd: str, tmp_path: Path) -> None:
    _, first = put(root, cwd, record_file(tmp_path))
    run(root, "archive", "--cwd", cwd)
    rc, data = put(root, cwd, record_file(tmp_path, name="new-note"))
    assert rc == 5 and data["error"]["code"] == "conflict" and "restore" in data["error"]["message"]
    assert run_json(root, "workspaces")[1]["workspaces"] == []
    assert run_json(root, "restore", "--key", first["workspace"])[0] == 0


def test_recycle_bin_errors(root: Path, cwd: str, tmp_path: Path) -> None:
    rc, data = run_json(root, "archive", "--key", "nope-0123456789abcdef")
    assert rc == 4 and data["error"]["code"] == "not_found"
    rc, data = run_json(root, "restore", "--key", "nope-0123456789abcdef")
    assert rc == 4 and data["error"]["code"] == "not_found"
    _, first = put(root, cwd, record_file(tmp_path))
    rc, data = run_json(root, "purge", "--key", first["workspace"], "--confirm", "atlas-web")
    assert rc == 3 and data["error"]["code"] == "refused" and "archive it first" in data["error"]["message"]
    rc, data = run_json(root, "archive", "--cwd", cwd, "--expect", "0000000000000001")
    assert rc == 5 and data["error"]["code"] == "conflict"


# --- check / demo / usage -------------------------------------------------------------------------------


def test_check_is_clean_then_reports_an_invalid_file(root: Path, cwd: str, tmp_path: Path) -> None:
    rc, data = run_json(root, "check")
    assert rc == 0 and data == {"root": str(root), "ok": True, "problems": []}
    _, first = put(root, cwd, record_file(tmp_path))
    broken = root / "workspaces" / first["workspace"] / "broken.md"
    broken.write_bytes(b"no frontmatter here\n")
    rc, data = run_json(root, "check")
    assert rc == 1 and data["ok"] is False
    assert [p["path"] for p in data["problems"]] == [f"workspaces/{first['workspace']}/broken.md"]
    rc, out, _ = run(root, "check")
    assert rc == 1 and "1 problem in" in out and "broken.md" in out
    assert broken.read_bytes() == b"no frontmatter here\n"  # reported, never rewritten


def test_demo_writes_a_root_the_other_commands_can_read(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    rc, out, _ = run(tmp_path / "unused", "demo", str(demo))
    assert rc == 0 and f"--root {demo}" in out
    rc, data = run_json(demo, "status")
    assert data["workspace_count"] == 4 and data["archived_count"] == 1
    rc, data = run_json(tmp_path / "unused", "demo", str(demo))
    assert rc == 2 and data["error"]["code"] == "usage" and "not an empty folder" in data["error"]["message"]


@pytest.mark.parametrize(
    "argv",
    [
        ["no-such-command"],
        ["show"],
        ["show", "--cwd", "/a", "--key", "k"],
        ["purge"],
        ["global"],
        ["put", "--cwd", "/a"],
    ],
)
def test_usage_errors_are_json_with_exit_2(root: Path, argv: list[str]) -> None:
    rc, data = run_json(root, *argv)
    assert rc == 2 and data["error"]["code"] == "usage" and data["error"]["message"]
    rc, _, err = run(root, *argv)
    assert rc == 2 and err.startswith("error: ")


# --- as a real process ----------------------------------------------------------------------------------


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    return subprocess.run(
        [sys.executable, "-m", "core.cli.main", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_real_process_round_trip(root: Path, cwd: str, tmp_path: Path) -> None:
    f = record_file(tmp_path)
    proc = _cli("--root", str(root), "--json", "put", "--cwd", cwd, "--file", str(f))
    assert proc.returncode == 0, proc.stderr
    revision = json.loads(proc.stdout)["revision"]
    proc = _cli("--root", str(root), "--json", "put", "--cwd", cwd, "--file", str(f), "--expect", "stale")
    assert proc.returncode == 5  # conflict
    assert json.loads(proc.stdout)["error"]["code"] == "conflict"
    proc = _cli("--root", str(root), "show", "--cwd", cwd)
    assert proc.returncode == 0 and revision in proc.stdout


def test_real_process_uses_dsh_memory_root_env(tmp_path: Path) -> None:
    env_root = tmp_path / "from-env"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DSH_")},
        "DSH_MEMORY_ROOT": str(env_root),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "core.cli.main", "--json", "status"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["root"] == str(env_root)


def test_history_of_a_record_in_an_archived_workspace_shows_its_current_content(
    root: Path, cwd: str, tmp_path: Path
) -> None:
    put(root, cwd, record_file(tmp_path))
    put(root, cwd, record_file(tmp_path, body="Second version."))
    run(root, "archive", "--cwd", cwd)
    rc, hist = run_json(root, "history", "--cwd", cwd, "--name", "build-tips")
    assert rc == 0 and "Second version." in hist["current"]["content"] and len(hist["versions"]) == 1


def test_each_error_kind_has_its_own_exit_code_and_the_readme_lists_it() -> None:
    import core.errors as errors
    from core.import_zip import ImportZipError
    from core.store.journal import DisplacedError

    kinds = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.DshMemoryError)]
    kinds.append(ImportZipError)
    by_code = {c.code: c.exit_code for c in kinds}
    assert len(set(by_code.values())) == len(by_code), by_code  # one exit code per kind
    assert DisplacedError.exit_code == errors.ConflictError.exit_code  # a kind of conflict
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for code, exit_code in by_code.items():
        assert f"| {exit_code} | `{code}`" in readme, code


def test_refusals_of_the_memorys_state_are_not_usage_errors(root: Path, tmp_path: Path) -> None:
    cwd = str(tmp_path / "proj")
    put(root, cwd, record_file(tmp_path))
    key = run_json(root, "workspaces")[1]["workspaces"][0]["key"]
    rc, data = run_json(root, "purge", "--key", key, "--confirm", key)
    assert rc == 3 and data["error"]["code"] == "refused"
    rc, data = run_json(root, "purge", "--nope")
    assert rc == 2 and data["error"]["code"] == "usage"
