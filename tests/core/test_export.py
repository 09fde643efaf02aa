"""Export: a zip of plain Markdown and a manifest; no internals, no secrets unless asked, never in the root."""

from __future__ import annotations

import json
import stat
import zipfile
from pathlib import Path

import pytest

from core.errors import UsageError
from core.export import export_zip
from core.models import PutOp, Record
from core.store.fs import FileStore

SHOP = "/home/ada/projects/shop"
BLOG = "/home/ada/projects/blog"


def _rec(name: str, body: str) -> Record:
    return Record(name=name, description=f"About {name}", type="project", body=f"\n{body}\n")


@pytest.fixture
def store(tmp_path: Path) -> FileStore:
    store = FileStore(tmp_path / "memory")
    store.replace_global("# Me\n\nI like short answers.\n", store.read_global().revision)
    shop = store.create_workspace(SHOP)
    ops = [
        PutOp(record=_rec("deploy", "We deploy with fly.io.")),
        PutOp(record=_rec("ci-token", "The CI token is ghp_1234567890abcdefghijklmnopqrstuvwxyzAB.")),
    ]
    store.commit(shop.key, ops, shop.revision, allow_secrets=True)
    blog = store.create_workspace(BLOG)
    store.commit(blog.key, [PutOp(record=_rec("hugo", "The blog is built with Hugo."))], blog.revision)
    (store.root / "workspaces" / shop.key / "broken.md").write_text("no frontmatter\n")  # type: ignore[operator]
    return store


def test_whole_root_export_is_plain_markdown_with_a_manifest(store: FileStore, tmp_path: Path) -> None:
    dest = tmp_path / "out" / "memory.zip"
    dest.parent.mkdir()
    summary = export_zip(store, dest)
    assert (summary.workspaces, summary.records, summary.global_included) == (2, 2, True)
    with zipfile.ZipFile(dest) as zf:
        names = zf.namelist()
        manifest = json.loads(zf.read("manifest.json"))
        shop_key = next(w["key"] for w in manifest["workspaces"] if w["cwd"] == SHOP)
        assert zf.read("GLOBAL.md").decode() == "# Me\n\nI like short answers.\n"
        deploy = zf.read(f"workspaces/{shop_key}/deploy.md").decode()
        index = zf.read(f"workspaces/{shop_key}/MEMORY.md").decode()
    assert deploy.startswith("---\nname: deploy\n") and "We deploy with fly.io." in deploy
    assert "[deploy](deploy.md)" in index and "ci-token" not in index
    assert not any(n.startswith(".manager") or "settings" in n or n.startswith("reviews") for n in names)
    assert not any("ci-token" in n or "broken" in n for n in names)
    skipped = {s["path"].rsplit("/", 1)[-1]: s["reason"] for s in manifest["skipped"]}
    assert skipped["ci-token.md"] == "holds credential-shaped text" and skipped["broken.md"].startswith("invalid")
    assert manifest["files"][f"workspaces/{shop_key}/deploy.md"] and manifest["secrets_included"] is False
    assert stat.S_IMODE(dest.stat().st_mode) == 0o600


def test_secrets_only_when_asked_and_one_workspace(store: FileStore, tmp_path: Path) -> None:
    shop = store.find_workspace(SHOP)
    assert shop is not None
    summary = export_zip(store, tmp_path / "shop.zip", keys=[shop.key], include_global=False, include_secrets=True)
    assert (summary.workspaces, summary.records, summary.global_included) == (1, 2, False)
    with zipfile.ZipFile(tmp_path / "shop.zip") as zf:
        assert "ghp_1234567890" in zf.read(f"workspaces/{shop.key}/ci-token.md").decode()
        assert "GLOBAL.md" not in zf.namelist()


def test_export_never_writes_into_the_memory_root(store: FileStore) -> None:
    assert store.root is not None
    before = sorted(p.relative_to(store.root) for p in store.root.rglob("*"))
    with pytest.raises(UsageError) as caught:
        export_zip(store, store.root / "workspaces" / "export.zip")
    assert caught.value.reason == "export-inside-root"
    assert sorted(p.relative_to(store.root) for p in store.root.rglob("*")) == before
