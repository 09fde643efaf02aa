"""A corpus of malformed files in a real scope: no crash, every file reported, no byte or mtime touched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.errors import InvalidRecordError
from core.models import DeleteOp, PutOp, Record
from core.store.fs import FileStore

CWD = "/home/me/corpus"
GOOD = b"---\nname: {n}\ndescription: A good record\nmetadata:\n  type: project\n---\n\nFact.\n"


def good(name: str) -> bytes:
    return GOOD.replace(b"{n}", name.encode())


def corpus(outside: Path) -> dict[str, bytes]:
    """File name -> bytes for every malformed regular file (symlinks/dirs/fifos are added separately)."""
    g = good("x")
    return {
        "bad-yaml.md": b"---\nname: [unclosed\ndescription: d\n---\n",
        "bad-yaml-tab.md": b"---\nname: a\n\tdescription: d\n---\n",
        "bad-date.md": good("bad-date").replace(b"metadata:", b"created: 2026-13-45\nmetadata:"),
        "missing-name.md": b"---\ndescription: d\nmetadata:\n  type: project\n---\n",
        "missing-description.md": b"---\nname: missing-description\nmetadata:\n  type: project\n---\n",
        "missing-type.md": b"---\nname: missing-type\ndescription: d\n---\n",
        "extra-dup-key.md": good("extra-dup-key").replace(b"---\nname", b"---\nname: extra-dup-key\nname", 1),
        "wrong-type-value.md": good("wrong-type-value").replace(b"type: project", b"type: idea"),
        "wrong-type-name.md": b"---\nname: 42\ndescription: d\nmetadata:\n  type: project\n---\n",
        "wrong-type-desc.md": b"---\nname: wrong-type-desc\ndescription: [a, b]\nmetadata:\n  type: project\n---\n",
        "wrong-type-meta.md": b"---\nname: wrong-type-meta\ndescription: d\nmetadata: project\n---\n",
        "not-a-mapping.md": b"---\n- a\n- b\n---\n",
        "multiline-desc.md": b"---\nname: multiline-desc\ndescription: |\n  a\n  b\nmetadata:\n  type: project\n---\n",
        "empty-desc.md": b"---\nname: empty-desc\ndescription: ''\nmetadata:\n  type: project\n---\n",
        "name-mismatch.md": good("something-else"),
        "memory.md": good("memory"),
        "Upper-Case.md": good("upper-case"),
        "bad--name.md": good("bad--name"),
        "invalid-utf8.md": g.replace(b"Fact.", b"Fa\xff\xfect."),
        "bom.md": b"\xef\xbb\xbf" + good("bom"),
        "crlf.md": good("crlf").replace(b"\n", b"\r\n"),
        "nul.md": good("nul").replace(b"Fact.", b"Fa\x00ct."),
        "huge.md": good("huge") + b"x" * (10 * 1024 * 1024),
        "empty.md": b"",
        "no-frontmatter.md": b"# Just a heading\n\nSome notes.\n",
        "unclosed.md": b"---\nname: unclosed\ndescription: d\n",
        "..md": good("x"),
        "...md": good("x"),
        "..\\..\\evil.md": good("evil"),
        "%2e%2e%2fetc.md": good("etc"),
        "Dup.md": good("dup"),
        "dup.md": good("dup"),
        "inline-meta-extra.md": b"---\nname: inline-meta-extra\ndescription: d\nmetadata: {type: project, x: 1}\n---\n",
        "binary.md": bytes(range(256)),
        "outside-target.txt": outside.read_bytes(),  # not a record: ignored, never touched
    }


def build(root: Path, tmp_path: Path) -> tuple[FileStore, str, Path]:
    store = FileStore(root)
    snap = store.create_workspace(CWD)
    d = root / "workspaces" / snap.key
    outside = tmp_path / "outside-secret.txt"
    outside.write_bytes(b"outside the root\n")
    for name, data in corpus(outside).items():
        (d / name).write_bytes(data)
    os.symlink(outside, d / "escape.md")
    os.symlink("../../../../etc/passwd", d / "escape-relative.md")
    os.symlink("dup.md", d / "inside-link.md")
    os.symlink("nowhere.md", d / "dangling.md")
    (d / "folder.md").mkdir()
    (d / "folder.md" / "inner.md").write_bytes(good("inner"))
    os.mkfifo(d / "fifo.md")
    # Files of other tools in the root: never touched.
    (root / "memory.json").write_bytes(b'{"other": "plugin"}')
    (root / "memory.db").write_bytes(b"SQLite format 3\x00")
    return store, snap.key, d


def fingerprint(root: Path) -> dict[str, tuple[str, int, int, bytes | None]]:
    """Kind, size, mtime and bytes of everything outside .manager (lstat: links are not followed)."""
    out: dict[str, tuple[str, int, int, bytes | None]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if ".manager" in Path(dirpath).relative_to(root).parts or Path(dirpath).name == ".manager":
            continue
        dirnames[:] = [d for d in dirnames if d != ".manager"]
        for n in [*filenames, *dirnames]:
            p = Path(dirpath) / n
            st = p.lstat()
            kind = "link" if p.is_symlink() else "dir" if p.is_dir() else "fifo" if not p.is_file() else "file"
            data = p.read_bytes() if kind == "file" else os.readlink(p).encode() if kind == "link" else None
            out[str(p.relative_to(root))] = (kind, st.st_size, st.st_mtime_ns, data)
    return out


@pytest.mark.timeout(120)
def test_malformed_corpus_is_reported_and_untouched(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    store, key, d = build(root, tmp_path)
    before = fingerprint(root)

    snap = store.read_workspace(key)
    entries = {e.file_name: e for e in snap.entries}
    expected_invalid = {n for n in os.listdir(d) if n.endswith(".md") and n not in ("MEMORY.md", "dup.md")}
    assert len(expected_invalid) >= 25
    for name in expected_invalid:
        e = entries[name]
        assert not e.is_valid, name
        assert e.invalid_reasons and all(r.strip() for r in e.invalid_reasons), name
    assert entries["dup.md"].is_valid
    assert "Dup.md" in " ".join(entries["Dup.md"].invalid_reasons) or "case" in " ".join(
        entries["Dup.md"].invalid_reasons
    )
    assert any("out of the memory root" in r for r in entries["escape.md"].invalid_reasons)
    assert any("directory" in r for r in entries["folder.md"].invalid_reasons)
    assert any("KiB" in r for r in entries["huge.md"].invalid_reasons)
    assert any("BOM" in r for r in entries["bom.md"].invalid_reasons)
    assert any("CR" in r for r in entries["crlf.md"].invalid_reasons)

    problems = store.inspect.check()
    reported = {p.path.rsplit("/", 1)[-1] for p in problems}
    assert expected_invalid <= reported

    # Operations that don't target the invalid files leave every byte and mtime alone.
    store.list_workspaces()
    store.status()
    FileStore(root)  # reopen (recovery) touches nothing either
    rec = Record(name="fresh", description="new", type="project", body="\nx\n")
    snap = store.commit(key, [PutOp(record=rec)], snap.revision)
    snap = store.commit(key, [DeleteOp(name="fresh")], snap.revision)
    after = fingerprint(root)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert changed <= {f"workspaces/{key}/MEMORY.md", f"workspaces/{key}"}, changed
    # dup.md is a valid record written behind the store's back: the rebuilt index now lists it.
    assert b"[dup](dup.md)" in (d / "MEMORY.md").read_bytes()

    # The store refuses to write through or over entries that aren't regular files.
    for name in ("folder", "escape", "fifo", "inside-link"):
        with pytest.raises(InvalidRecordError):
            store.commit(key, [DeleteOp(name=name)], snap.revision)
    with pytest.raises(InvalidRecordError):
        store.commit(key, [PutOp(record=rec.model_copy(update={"name": "escape"}))], snap.revision)
    for bad in ("../evil", "..", "a/b"):
        with pytest.raises(InvalidRecordError):
            store.commit(key, [DeleteOp(name=bad)], snap.revision)
    assert fingerprint(root) == after

    # Archive and restore keep the whole corpus byte-identical.
    store.recycle.archive(key)
    store.recycle.restore(key)
    final = fingerprint(root)
    for k, v in after.items():
        if k.startswith(f"workspaces/{key}/"):  # the folders themselves change mtime with the rename
            assert final[k] == v, k
    assert final["memory.json"] == after["memory.json"] and final["memory.db"] == after["memory.db"]
