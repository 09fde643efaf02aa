"""DSH project memory (seed ``002_*``): ``<workspace cwd>/project_memory/``, read best-effort, read-only.

Only the file names of this store are documented publicly, so this reads what is plain text:
node titles from ``<subproject>/manifest.json`` (schema 3, ``nodes[]``) and the entries of each
node's ``funnel/core.md`` and ``funnel/regular.md`` (one list item or paragraph per entry).
Vectors (``vec/``) and process logs (``funnel/log/``) are skipped on purpose; everything else
(``graph.json``, ``doctrine.md``, backups...) is reported as "not understood", never a failure.
``api.json`` may hold an API key and is never opened.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

from core.sources.files import Unreadable, as_str, is_dir, read_json, read_text
from core.sources.markdown import body_of
from core.sources.models import ForeignEntry, SourceProblem, SourceScope, SourceSnapshot

KIND: Final = "project-memory"
FOLDER = "project_memory"
FUNNEL_LAYERS = ("core", "regular")
_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d+[.)])\s+(.*)$")
_UNDERSTOOD = {"manifest.json", "nodes"}
_SKIPPED = {"vec": "vectors", "_backup": "migration backups", "_system": "migration locks", "api.json": "credentials"}


def split_entries(text: str) -> list[str]:
    """Entries of a funnel file: each top-level list item (with its continuation lines) or paragraph."""
    text = body_of(text)
    out: list[str] = []
    current: list[str] = []

    def flush() -> None:
        joined = "\n".join(current).strip()
        if joined:
            out.append(joined)
        current.clear()

    in_item = False
    for line in text.splitlines():
        m = _ITEM.match(line)
        if m:
            flush()
            current.append(m.group(1))
            in_item = True
        elif not line.strip():
            if not in_item:
                flush()
        elif line.lstrip().startswith("#") and not line.startswith("    "):
            flush()
            in_item = False
        elif line.startswith(("<!--",)) and line.rstrip().endswith("-->"):
            continue
        else:
            if in_item and not line.startswith((" ", "\t")):
                flush()
                in_item = False
            current.append(line.strip())
    flush()
    return out


def _node_title(node: dict[str, Any]) -> str:
    for key in ("p", "title", "name", "label", "legacyLabel"):
        value = as_str(node.get(key)).strip()
        if value:
            return value.splitlines()[0]
    return as_str(node.get("id"))


def _registry_names(path: Path, problems: list[SourceProblem]) -> dict[str, str]:
    """Subproject id -> name, when ``.registry.json`` has a shape we can recognize."""
    try:
        doc = read_json(path)
    except Unreadable as exc:
        problems.append(exc.problem)
        return {}
    names: dict[str, str] = {}

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            ident, name = as_str(value.get("id")), as_str(value.get("name")) or as_str(value.get("title"))
            if ident and name:
                names[ident] = name
            for v in value.values():
                visit(v)
        elif isinstance(value, list):
            for v in value:
                visit(v)

    visit(doc)
    return names


def _read_subproject(
    folder: Path, cwd: str, names: dict[str, str], problems: list[SourceProblem]
) -> tuple[SourceScope | None, list[ForeignEntry]]:
    manifest_path = folder / "manifest.json"
    try:
        manifest = read_json(manifest_path)
    except Unreadable as exc:
        problems.append(exc.problem)
        return None, []
    if not isinstance(manifest, dict) or not isinstance(manifest.get("nodes"), list):
        problems.append(
            SourceProblem(path=str(manifest_path), reason="has no nodes[] list; not understood", severity="note")
        )
        return None, []
    if manifest.get("schema") != 3:
        problems.append(
            SourceProblem(
                path=str(manifest_path),
                reason=f"has schema {manifest.get('schema')!r}, not 3; read as schema 3",
                severity="note",
            )
        )
    entries: list[ForeignEntry] = []
    for node in manifest["nodes"]:
        if not isinstance(node, dict) or not as_str(node.get("id")):
            problems.append(SourceProblem(path=str(manifest_path), reason="a node has no id; skipped", severity="note"))
            continue
        node_id = as_str(node.get("id"))
        if "/" in node_id or "\\" in node_id or node_id in (".", ".."):
            problems.append(SourceProblem(path=str(manifest_path), reason=f"node id {node_id!r} is a path; skipped"))
            continue
        title = _node_title(node)
        funnel = folder / "nodes" / node_id / "funnel"
        for layer in FUNNEL_LAYERS:
            path = funnel / f"{layer}.md"
            if not path.exists():
                continue
            try:
                texts = split_entries(read_text(path))
            except Unreadable as exc:
                problems.append(exc.problem)
                continue
            for i, text in enumerate(texts, start=1):
                entries.append(
                    ForeignEntry(
                        source=KIND,
                        id=f"{folder.name}/{node_id}/{layer}#{i}",
                        scope=folder.name,
                        cwd=cwd,
                        kind=layer,
                        title=title,
                        text=text,
                        path=str(path),
                    )
                )
        logs = funnel / "log"
        if is_dir(logs):
            count = sum(1 for _ in logs.glob("*.md"))
            problems.append(
                SourceProblem(path=str(logs), reason=f"{count} process log(s) skipped (raw logs)", severity="note")
            )
    other = sorted(p.name for p in folder.iterdir() if p.name not in _UNDERSTOOD and p.name not in _SKIPPED)
    skipped = sorted(f"{p.name}/ ({_SKIPPED[p.name]})" for p in folder.iterdir() if p.name in _SKIPPED)
    if skipped:
        problems.append(SourceProblem(path=str(folder), reason="skipped: " + ", ".join(skipped), severity="note"))
    if other:
        problems.append(SourceProblem(path=str(folder), reason="not understood: " + ", ".join(other), severity="note"))
    name = names.get(folder.name, "")
    scope = SourceScope(
        key=folder.name,
        cwd=cwd,
        path=str(folder),
        entries=len(entries),
        cwd_exists=True,
        note=name,
    )
    return scope, entries


def read_project_memory(folder: Path, cwd: str) -> SourceSnapshot:
    """The ``project_memory/`` folder of workspace ``cwd``: every subproject with a manifest."""
    problems: list[SourceProblem] = []
    names: dict[str, str] = {}
    if (folder / ".registry.json").exists():
        names = _registry_names(folder / ".registry.json", problems)
    scopes: list[SourceScope] = []
    entries: list[ForeignEntry] = []
    try:
        children = sorted(folder.iterdir())
    except OSError as exc:
        problems.append(SourceProblem(path=str(folder), reason=f"cannot be read: {exc.strerror or exc}"))
        children = []
    others: list[str] = []
    for child in children:
        if child.name in (".registry.json",) or child.name in _SKIPPED:
            continue
        if is_dir(child) and (child / "manifest.json").exists():
            scope, found = _read_subproject(child, cwd, names, problems)
            if scope is not None:
                scopes.append(scope)
                entries += found
        else:
            others.append(child.name + ("/" if is_dir(child) else ""))
    if others:
        problems.append(SourceProblem(path=str(folder), reason="not understood: " + ", ".join(others), severity="note"))
    return SourceSnapshot(
        kind=KIND, path=str(folder), scopes=tuple(scopes), entries=tuple(entries), problems=tuple(problems)
    )
