"""Issue 25, finding 3: a purge deletes every derived copy of a workspace's text.

A root gets every kind of derived data for one workspace, each holding a unique marker: records
with history and a commit log, the search cache, a pending agent proposal with its receipt, a
pending (zip import) review with the user's edit in its review state, a debug log, review marks,
the usage ledger's log of what the MCP server served.
After ``dsh-memory purge`` every byte of every file under the root is searched for the marker: zero
hits; and no file of the search index that existed before the purge is left (the index compresses
what it stores, so its copy is proven gone by its files being gone). On the code before issue 25 the proposal, the
review state, the debug log and the search cache kept it, and ``review ID --apply --refresh``
re-created the purged workspace.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from pathlib import Path

from core.cli.main import main
from core.export import FORMAT
from core.import_zip import open_zip_reviews, read_export_zip
from core.mcp.agent import AgentSession
from core.models import PutOp, Record
from core.store.files import DEBUG_LOGS, STALE_MARKS
from core.store.fs import FileStore
from core.usage.ledger import note_served

MARKER = "zq7-purge-marker-4f1c9e"
CWD = "/home/ada/projects/atlas"


def run(root: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["--root", str(root), *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _record(name: str, text: str) -> Record:
    return Record(name=name, description=f"About {name}", type="project", body=f"\n{text}\n")


def _zip_with(path: Path, text: str) -> Path:
    data = f"---\nname: zip-fact\ndescription: From a zip\nmetadata:\n  type: project\n---\n\n{text}\n".encode()
    name = "workspaces/atlas-1/zip-fact.md"
    manifest = {
        "format": FORMAT,
        "workspaces": [{"key": "atlas-1", "cwd": CWD}],
        "files": {name: hashlib.sha256(data).hexdigest()},
    }
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", json.dumps(manifest))
        zf.writestr(name, data)
    return path


def _hits(root: Path) -> list[str]:
    found = []
    needle = MARKER.encode()
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if needle in name.encode() or needle in path.read_bytes():
                found.append(str(path.relative_to(root)))
    return sorted(found)


def test_purge_leaves_no_copy_of_the_workspace_anywhere_under_the_root(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    store = FileStore(root)
    snap = store.create_workspace(CWD)
    key = snap.key
    snap = store.commit(key, [PutOp(record=_record("deploy", f"Deploy notes {MARKER}."))], snap.revision)
    snap = store.commit(key, [PutOp(record=_record("deploy", f"Deploy notes v2 {MARKER}."))], snap.revision)
    snap = store.commit(key, [PutOp(record=_record("scratch", f"Scratch {MARKER}."))], snap.revision)
    from core.models import DeleteOp

    store.commit(key, [DeleteOp(name="scratch")], snap.revision)  # history: overwritten and deleted
    # The search cache (SQLite + WAL) holds every record's text.
    assert run(root, "search", MARKER)[0] == 0
    assert list((root / ".manager" / "cache").iterdir())
    # A pending agent proposal (review mode) and its receipt.
    agent = AgentSession(store, CWD, client="test-agent", connection="mcp-test")
    observed = agent.index_text().rstrip().splitlines()[-1].removeprefix("observed: ")  # the read's handle
    update = {"op": "put", "name": "agent-fact", "description": "d", "type": "project", "body": f"Agent {MARKER}"}
    proposal_id = json.loads(agent.update([update], "the user asked", observed))["proposal_id"]
    # A pending review (zip import) with the user's edit in its private state, and a debug log.
    opened = open_zip_reviews(store, read_export_zip(_zip_with(tmp_path / "in.zip", f"Zip {MARKER}")))
    ((service, review),) = opened.reviews
    change = review.changes[0]
    service.edit_change(review, change.id, _record("zip-fact", f"Edited {MARKER}"))
    store.files(DEBUG_LOGS).append(f"{review.review_id}/attempt-1", json.dumps({"evidence": f"said {MARKER}"}) + "\n")
    store.files(STALE_MARKS).write(key, json.dumps({"reviewed": {"deploy": f"{MARKER}"}}))
    note_served(store, key, [f"deploy-{MARKER}"], "memory_read", "test-agent")  # the usage ledger's MCP log
    note_served(store, "other-0123456789abcdef", ["kept"], "memory_read", "test-agent")
    assert _hits(root)  # the marker is planted in every kind of derived data

    # The index compresses its stored text (a byte search cannot see it there), so for the index the
    # proof is that none of the files that held it survive the purge.
    index_files = {(p.stat().st_ino, str(p)) for p in (root / ".manager" / "cache").rglob("*") if p.is_file()}
    assert index_files
    assert run(root, "archive", "--key", key)[0] == 0
    code, out, err = run(root, "purge", "--key", key, "--confirm", "atlas")
    assert code == 0, err

    assert _hits(root) == []
    left = {(p.stat().st_ino, str(p)) for p in (root / ".manager" / "cache").rglob("*") if p.is_file()}
    assert not index_files & left
    assert b"kept" in (root / ".manager" / "usage" / "served.jsonl").read_bytes()  # other workspaces' usage stays
    code, out, _ = run(root, "--json", "reviews", "--pending")
    assert code == 0 and MARKER not in out and proposal_id not in out
    code, _, _ = run(root, "review", proposal_id, "--apply", "--refresh")
    assert code != 0
    assert store.find_workspace(CWD) is None and not (root / "workspaces" / key).exists()
    assert run(root, "search", "deploy")[0] == 0  # the search cache rebuilds from what is left
    assert _hits(root) == []
