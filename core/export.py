"""Export memory as a zip of plain Markdown plus a JSON manifest (a workspace, several, or the whole root).

The zip holds what a person can read without this app: ``GLOBAL.md``, and per workspace its
``MEMORY.md`` index and one ``<name>.md`` per record, under ``workspaces/<key>/`` (rendered from the
parsed records, unknown frontmatter keys kept). ``manifest.json`` lists the workspaces (key, cwd,
record names) and the SHA-256 of every file, so an import can check what it got.

Never included: ``.manager/`` internals (history, journals, caches, review state), settings,
receipts, invalid files, and records or a Global that hold credential-shaped text — those are left
out and listed in the manifest's ``skipped`` unless ``include_secrets`` is asked for. The zip is
written atomically (temp file + rename) and never inside the memory root.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.atomic import write_atomic
from core.errors import UsageError
from core.records import render_index, render_record
from core.store.api import MemoryStore
from core.version import __version__

MANIFEST = "manifest.json"
FORMAT = "dsh-memory-export/1"


@dataclass
class ExportSummary:
    """What went into the zip and what was left out (and why)."""

    path: Path
    workspaces: int = 0
    records: int = 0
    global_included: bool = False
    skipped: list[dict[str, str]] = field(default_factory=list)
    bytes: int = 0


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _has_secret(text: str) -> bool:
    from core.secrets import find_secrets

    return bool(find_secrets(text))


def _inside(path: Path, root: Path) -> bool:
    try:
        Path(os.path.realpath(path)).relative_to(os.path.realpath(root))
    except ValueError:
        return False
    return True


def export_zip(
    store: MemoryStore,
    dest: Path,
    *,
    keys: Sequence[str] | None = None,
    include_global: bool = True,
    include_secrets: bool = False,
    records: Mapping[str, Collection[str]] | None = None,
) -> ExportSummary:
    """Write the export to ``dest``. ``keys``: the workspaces (active ones; None = every active one).
    ``records``: per workspace key, only these record names (a selection); other keys export whole."""
    dest = Path(os.path.abspath(dest))
    if store.root is not None and _inside(dest.parent, store.root):
        raise UsageError(
            f"{dest} is inside the memory root; choose a folder outside {store.root} for the export",
            reason="export-inside-root",
        )
    if not dest.parent.is_dir():
        raise UsageError(f"the folder {dest.parent} does not exist; choose an existing folder for the export")
    summary = ExportSummary(path=dest)
    files: dict[str, bytes] = {}
    manifest_ws: list[dict[str, Any]] = []
    if include_global:
        text = store.read_global().text
        if text and _has_secret(text) and not include_secrets:
            summary.skipped.append({"path": "GLOBAL.md", "reason": "holds credential-shaped text"})
        elif text:
            files["GLOBAL.md"] = text.encode("utf-8")
            summary.global_included = True
    wanted = list(keys) if keys is not None else [w.key for w in store.list_workspaces()]
    for key in wanted:
        snap = store.read_workspace(key)
        names: list[str] = []
        kept = []
        only = records.get(key) if records is not None else None
        for entry in snap.entries:
            if only is not None and entry.name not in only:
                continue
            rel = f"workspaces/{key}/{entry.file_name}"
            if entry.record is None or not entry.is_valid:
                summary.skipped.append({"path": rel, "reason": "invalid record: " + "; ".join(entry.invalid_reasons)})
                continue
            data = render_record(entry.record)
            # The rendered bytes, not description + body: an unknown frontmatter key
            # (``deploy_token: ghp_…``) leaves in the export just the same.
            if not include_secrets and _has_secret(data.decode("utf-8", "replace")):
                summary.skipped.append({"path": rel, "reason": "holds credential-shaped text"})
                continue
            files[rel] = data
            kept.append(entry.record)
            names.append(entry.record.name)
        files[f"workspaces/{key}/MEMORY.md"] = render_index(kept)
        manifest_ws.append({"key": key, "cwd": snap.info.cwd, "records": names})
        summary.workspaces += 1
        summary.records += len(names)
    manifest = {
        "format": FORMAT,
        "app_version": __version__,
        "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "secrets_included": include_secrets,
        "global": summary.global_included,
        "workspaces": manifest_ws,
        "files": {path: _sha(data) for path, data in sorted(files.items())},
        "skipped": summary.skipped,
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
        for path, data in sorted(files.items()):
            zf.writestr(path, data)
    payload = buffer.getvalue()
    write_atomic(dest, payload, mode=0o600)  # memory is private: the export is too
    summary.bytes = len(payload)
    return summary
