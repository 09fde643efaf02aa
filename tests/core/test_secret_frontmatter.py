"""Issue 25, finding 4: secret scanning covers the rendered bytes (unknown frontmatter keys too)
wherever a file leaves or enters: export without secrets, zip import's credential count, commit.
The export and the import checks failed on the code before issue 25 (only description and body)."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from core.errors import SecretRefusedError
from core.export import FORMAT, export_zip
from core.import_zip import read_export_zip
from core.models import PutOp, Record
from core.store.fs import FileStore

SHOP = "/home/ada/projects/shop"
TOKEN = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"
HAND_WRITTEN = (
    f"---\nname: deploy\ndescription: How we deploy\ndeploy_token: {TOKEN}\nmetadata:\n  type: project\n---\n\n"
    "We deploy with fly.io.\n"
).encode()


def test_an_export_without_secrets_leaves_out_a_token_in_unknown_frontmatter(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    shop = store.create_workspace(SHOP)
    (tmp_path / "memory" / "workspaces" / shop.key / "deploy.md").write_bytes(HAND_WRITTEN)
    assert store.read_workspace(shop.key).get("deploy") is not None  # a valid record the store lists
    dest = tmp_path / "out.zip"
    summary = export_zip(store, dest)
    assert summary.records == 0
    assert TOKEN.encode() not in dest.read_bytes()
    with zipfile.ZipFile(dest) as zf:
        assert TOKEN not in "".join(zf.read(n).decode() for n in zf.namelist())


def test_zip_import_counts_a_token_in_unknown_frontmatter(tmp_path: Path) -> None:
    name = "workspaces/shop-1/deploy.md"
    manifest = {
        "format": FORMAT,
        "workspaces": [{"key": "shop-1", "cwd": SHOP}],
        "files": {name: hashlib.sha256(HAND_WRITTEN).hexdigest()},
    }
    path = tmp_path / "in.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", json.dumps(manifest))
        zf.writestr(name, HAND_WRITTEN)
    assert read_export_zip(path).secrets == [name]


def test_a_commit_refuses_a_token_in_unknown_frontmatter(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    shop = store.create_workspace(SHOP)
    record = Record(
        name="deploy",
        description="How we deploy",
        type="project",
        body="\nfly.io\n",
        extra_frontmatter=f"deploy_token: {TOKEN}\n",
    )
    with pytest.raises(SecretRefusedError):
        store.commit(shop.key, [PutOp(record=record)], shop.revision, origin="automatic")
    assert store.read_workspace(shop.key).get("deploy") is None
