"""Importing an export zip: hostile zips are refused before anything is proposed; a good one becomes
pending reviews (the same objects as any import) and memory changes only when one is committed."""

from __future__ import annotations

import hashlib
import json
import stat
import zipfile
from pathlib import Path

import pytest

from core.consolidation.review_sources import read_pending
from core.consolidation.service import ConsolidationService
from core.export import FORMAT, export_zip
from core.import_zip import ImportZipError, Limits, open_zip_reviews, read_export_zip
from core.model_catalog import ModelCatalog
from core.models import PutOp, Record
from core.settings import AppSettings
from core.store.fs import FileStore

SHOP = "/home/ada/projects/shop"


def _rec(name: str, body: str) -> Record:
    return Record(name=name, description=f"About {name}", type="project", body=f"\n{body}\n")


def _record_bytes(name: str, body: str = "Some fact.") -> bytes:
    return f"---\nname: {name}\ndescription: About {name}\nmetadata:\n  type: project\n---\n\n{body}\n".encode()


def _zip(
    path: Path, files: dict[str, bytes], *, manifest: dict[str, object] | None = None, hashes: bool = True
) -> Path:
    listed = {n: hashlib.sha256(d).hexdigest() for n, d in files.items()} if hashes else {}
    doc = manifest or {"format": FORMAT, "workspaces": [{"key": "shop-1", "cwd": SHOP, "records": []}], "files": listed}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps(doc))
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def test_a_good_zip_round_trips(tmp_path: Path) -> None:
    src = FileStore(tmp_path / "a")
    src.replace_global("# Me\n\nShort answers.\n", src.read_global().revision)
    snap = src.create_workspace(SHOP)
    src.commit(snap.key, [PutOp(record=_rec("deploy", "fly.io")), PutOp(record=_rec("ci", "GitHub"))], snap.revision)
    export_zip(src, tmp_path / "x.zip")
    contents = read_export_zip(tmp_path / "x.zip")
    assert contents.refused == [] and contents.secrets == []
    assert contents.global_text == "# Me\n\nShort answers.\n"
    [ws] = contents.workspaces
    assert ws.cwd == SHOP and sorted(r.name for r in ws.records) == ["ci", "deploy"]


def test_path_traversal_symlinks_and_duplicates_are_left_out(tmp_path: Path) -> None:
    good = _record_bytes("deploy")
    files = {
        "workspaces/shop-1/deploy.md": good,
        "../evil.md": _record_bytes("evil"),
        "/etc/passwd.md": b"root",
        "workspaces/shop-1/../../x.md": _record_bytes("x"),
        "workspaces/shop-1/sub/deep.md": _record_bytes("deep"),
        ".manager/history/x.md": b"internal",
        "C:/win.md": b"x",
    }
    path = _zip(tmp_path / "evil.zip", files)
    with zipfile.ZipFile(path, "a") as zf:
        link = zipfile.ZipInfo("workspaces/shop-1/link.md")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
        zf.writestr("workspaces/shop-1/DEPLOY.md", _record_bytes("DEPLOY"))  # a case-folded duplicate
    contents = read_export_zip(path)
    kinds = {r.path: r.kind for r in contents.refused}
    assert kinds["../evil.md"] == "unsafe-path" and kinds["/etc/passwd.md"] == "unsafe-path"
    assert (
        kinds["workspaces/shop-1/../../x.md"] == "unsafe-path"
        and kinds["workspaces/shop-1/sub/deep.md"] == "unsafe-path"
    )
    assert kinds[".manager/history/x.md"] == "unsafe-path" and kinds["C:/win.md"] == "unsafe-path"
    assert kinds["workspaces/shop-1/link.md"] == "symlink"
    assert kinds["workspaces/shop-1/DEPLOY.md"] == "duplicate"
    assert contents.workspaces == []  # both "deploy" copies are left out: which one is meant is unknown


def test_hashes_unlisted_missing_invalid_and_secrets(tmp_path: Path) -> None:
    files = {
        "workspaces/shop-1/ok.md": _record_bytes("ok"),
        "workspaces/shop-1/tampered.md": _record_bytes("tampered"),
        "workspaces/shop-1/bad.md": b"no frontmatter\n",
        "workspaces/shop-1/token.md": _record_bytes(
            "token", "The token is ghp_1234567890abcdefghijklmnopqrstuvwxyzAB."
        ),
    }
    listed = {n: hashlib.sha256(d).hexdigest() for n, d in files.items()}
    listed["workspaces/shop-1/tampered.md"] = "0" * 64
    listed["workspaces/shop-1/gone.md"] = "1" * 64
    manifest = {"format": FORMAT, "workspaces": [{"key": "shop-1", "cwd": SHOP}], "files": listed}
    path = _zip(tmp_path / "t.zip", files, manifest=manifest)
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("workspaces/shop-1/extra.md", _record_bytes("extra"))
    contents = read_export_zip(path)
    kinds = {r.path.rsplit("/", 1)[-1]: r.kind for r in contents.refused}
    assert kinds == {
        "tampered.md": "hash-mismatch",
        "bad.md": "invalid-record",
        "gone.md": "missing",
        "extra.md": "unlisted",
    }
    assert contents.secrets == ["workspaces/shop-1/token.md"]
    assert sorted(r.name for r in contents.workspaces[0].records) == ["ok", "token"]


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda p: p.write_bytes(b"not a zip at all"), "not-a-zip"),
        (lambda p: zipfile.ZipFile(p, "w").writestr("GLOBAL.md", "x"), "no-manifest"),
        (lambda p: zipfile.ZipFile(p, "w").writestr("manifest.json", "{"), "bad-manifest"),
        (lambda p: zipfile.ZipFile(p, "w").writestr("manifest.json", '{"format": "other/1"}'), "wrong-format"),
    ],
)
def test_not_an_export_is_refused_whole(tmp_path: Path, make: object, kind: str) -> None:
    path = tmp_path / "z.zip"
    make(path)  # type: ignore[operator]
    with pytest.raises(ImportZipError) as info:
        read_export_zip(path)
    assert info.value.kind == kind


def test_zip_bombs_and_size_limits(tmp_path: Path) -> None:
    bomb = b"\n" * (3 << 20)  # 3 MiB of one byte: deflates to a few KB
    path = _zip(tmp_path / "bomb.zip", {"workspaces/shop-1/bomb.md": bomb})
    with pytest.raises(ImportZipError) as info:
        read_export_zip(path)
    assert info.value.kind == "zip-bomb"
    with pytest.raises(ImportZipError) as info:
        read_export_zip(path, Limits(max_member_bytes=1 << 20))
    assert info.value.kind == "member-too-large"
    many = _zip(tmp_path / "many.zip", {f"workspaces/shop-1/r{i}.md": _record_bytes(f"r{i}") for i in range(30)})
    with pytest.raises(ImportZipError) as info:
        read_export_zip(many, Limits(max_members=10))
    assert info.value.kind == "too-many"
    with pytest.raises(ImportZipError) as info:
        read_export_zip(many, Limits(max_total_bytes=1000))
    assert info.value.kind == "too-large"
    with pytest.raises(ImportZipError) as info:
        read_export_zip(many, Limits(max_zip_bytes=100))
    assert info.value.kind == "too-large"


def test_reviews_are_pending_and_memory_changes_only_on_commit(tmp_path: Path) -> None:
    src = FileStore(tmp_path / "a")
    src.replace_global("# Me\n\nShort answers.\n", src.read_global().revision)
    snap = src.create_workspace(SHOP)
    src.commit(snap.key, [PutOp(record=_rec("deploy", "fly.io")), PutOp(record=_rec("ci", "GitHub"))], snap.revision)
    export_zip(src, tmp_path / "x.zip")

    dst = FileStore(tmp_path / "b")
    dst.replace_global("# Me\n\nI use vim.\n", dst.read_global().revision)
    mine = dst.create_workspace(SHOP)
    dst.commit(mine.key, [PutOp(record=_rec("deploy", "fly.io"))], mine.revision)  # already the same
    before = dst.read_workspace(mine.key).revision
    result = open_zip_reviews(dst, read_export_zip(tmp_path / "x.zip"))
    assert len(result.reviews) == 2 and result.refused == []
    assert dst.read_workspace(mine.key).revision == before  # nothing written to memory
    assert dst.read_global().text == "# Me\n\nI use vim.\n"
    ws_review = next(r for _s, r in result.reviews if r.workspace_key == mine.key)
    kinds = sorted((c.kind, c.target) for c in ws_review.changes)
    assert kinds == [("no_change", ""), ("put", "ci.md")]
    assert [c.target for c in ws_review.actionable] == ["ci.md"]
    # The Consolidation tab's pending list shows them under Imports (read back from the store).
    main = ConsolidationService(dst, ModelCatalog(()), AppSettings())
    from core.consolidation.agent_proposals import AgentProposals

    listing = read_pending(main, AgentProposals(dst, AppSettings()))
    assert {i.source for i in listing.items} == {"import"} and len(listing.items) == 2
    service, review = next((s, r) for s, r in result.reviews if r.workspace_key == mine.key)
    receipt = service.commit(review, [c.id for c in review.actionable])
    assert receipt.status == "committed"
    assert sorted(r.name for r in dst.read_workspace(mine.key).records()) == ["ci", "deploy"]
    global_review = next(r for _s, r in result.reviews if r.workspace_key == "global")
    [change] = global_review.actionable
    assert "Short answers." in (change.after or "") and "I use vim." in (change.after or "")


def test_archived_workspace_is_refused(tmp_path: Path) -> None:
    dst = FileStore(tmp_path / "b")
    mine = dst.create_workspace(SHOP)
    dst.commit(mine.key, [PutOp(record=_rec("a", "b"))], mine.revision)
    dst.recycle.archive(mine.key)
    path = _zip(tmp_path / "z.zip", {"workspaces/shop-1/deploy.md": _record_bytes("deploy")})
    result = open_zip_reviews(dst, read_export_zip(path))
    assert result.reviews == [] and [e.kind for e in result.refused] == ["archived"]
