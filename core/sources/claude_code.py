"""Claude Code auto memory: ``~/.claude/projects/<encoded project root>/memory/``, read-only.

``MEMORY.md`` indexes topic files (``- [Title](file.md) — hook``); each topic file has YAML
frontmatter ``name``, ``description``, ``type`` (``user|feedback|project|reference``) and a body.
The folder name is the project root with every character that is not an ASCII letter or digit
replaced by ``-`` (no collapsing), which is lossy: ``/a/b.c`` and ``/a/b-c`` share a folder. So a
folder maps to a workspace only when exactly one known cwd encodes to it; otherwise the user
must say which workspace it is (``--cwd``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

import yaml

from core.sources.files import Unreadable, as_str, is_dir, read_text
from core.sources.markdown import YAML_HEADER as _TOPIC
from core.sources.models import ForeignEntry, SourceProblem, SourceScope, SourceSnapshot

KIND: Final = "claude-code"
TYPES = ("user", "feedback", "project", "reference")
_INDEX_LINE = re.compile(r"^\s*[-*]\s+\[(?P<title>[^\]]+)\]\((?P<file>[^)\s]+)\)\s*(?:[—–:-]+\s*(?P<hook>.*))?$")


def encode_project(cwd: str) -> str:
    """Claude Code's folder name for a project root: every non-ASCII-alphanumeric character becomes ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def candidates_for(folder_name: str, known_cwds: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted({c for c in known_cwds if c and encode_project(c) == folder_name}))


def _index(path: Path, problems: list[SourceProblem]) -> dict[str, tuple[str, str]]:
    """File name -> (title, hook) from ``MEMORY.md``; lines that are not index lines are ignored."""
    try:
        text = read_text(path)
    except Unreadable as exc:
        problems.append(exc.problem)
        return {}
    out: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        m = _INDEX_LINE.match(line)
        if m:
            out[m.group("file")] = (m.group("title").strip(), (m.group("hook") or "").strip())
    return out


def parse_topic(text: str) -> tuple[dict[str, Any], str]:
    """Frontmatter and body of a topic file. Raises ValueError with a reason for a malformed file.

    A plain parse of another program's Markdown (core/sources/markdown.py): python-frontmatter's YAML
    handler splits and loads it, with libyaml's safe loader when PyYAML has one (about 10x faster on a
    thousand topic files).
    """
    text = text.replace("\r\n", "\n")
    if not _TOPIC.detect(text):
        raise ValueError("has no frontmatter (it must start with a --- line)")
    try:
        front, body = _TOPIC.split(text)
    except ValueError:
        raise ValueError("its frontmatter is never closed with a --- line") from None
    try:
        meta = _TOPIC.load(front) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""  # ``front`` starts at the first ---
        raise ValueError(f"has frontmatter that is not valid YAML{where}") from exc
    if not isinstance(meta, dict):
        raise ValueError("has frontmatter that is not a mapping of keys")
    return meta, body.lstrip("\n")


def _read_folder(folder: Path, cwd: str | None, problems: list[SourceProblem]) -> list[ForeignEntry]:
    memory = folder / "memory"
    index = _index(memory / "MEMORY.md", problems) if (memory / "MEMORY.md").exists() else {}
    try:
        files = sorted(p for p in memory.iterdir() if p.suffix == ".md" and p.name != "MEMORY.md" and p.is_file())
    except OSError as exc:
        problems.append(SourceProblem(path=str(memory), reason=f"cannot be read: {exc.strerror or exc}"))
        return []
    for name in sorted(set(index) - {p.name for p in files}):
        problems.append(SourceProblem(path=str(memory / "MEMORY.md"), reason=f"lists {name}, which does not exist"))
    entries: list[ForeignEntry] = []
    for path in files:
        try:
            meta, body = parse_topic(read_text(path))
        except Unreadable as exc:
            problems.append(exc.problem)
            continue
        except ValueError as exc:
            problems.append(SourceProblem(path=str(path), reason=f"{exc}; skipped"))
            continue
        nested = meta.get("metadata")
        kind = as_str(meta.get("type")).strip() or (
            as_str(nested.get("type")).strip() if isinstance(nested, dict) else ""
        )
        if kind not in TYPES:
            problems.append(
                SourceProblem(path=str(path), reason=f"has type {kind or '(none)'!r}, not one of {', '.join(TYPES)}")
            )
        title, hook = index.get(path.name, ("", ""))
        name = as_str(meta.get("name")).strip() or path.stem
        body_text = body.strip()
        desc = as_str(meta.get("description")).strip() or hook
        if not body_text:
            problems.append(SourceProblem(path=str(path), reason="has an empty body; skipped"))
            continue
        entries.append(
            ForeignEntry(
                source=KIND,
                id=path.name,
                scope=folder.name,
                cwd=cwd,
                kind=kind or "project",
                title=title or name,
                text=body_text,
                description=desc.splitlines()[0] if desc else "",
                tags=(name,),
                path=str(path),
                global_fact=kind == "user",
            )
        )
    return entries


def read_claude_code(
    projects: Path, known_cwds: Iterable[str] = (), assign: Mapping[str, str] | None = None
) -> SourceSnapshot:
    """Every ``<encoded>/memory/`` folder under ``projects``.

    ``assign`` maps folder names to the cwd the user chose for them (``--cwd``); otherwise a
    folder maps to the one known cwd that encodes to it, or stays unmapped (ambiguous/unknown).
    """
    known = tuple(dict.fromkeys(known_cwds))
    assign = dict(assign or {})
    problems: list[SourceProblem] = []
    scopes: list[SourceScope] = []
    entries: list[ForeignEntry] = []
    try:
        folders = sorted(p for p in projects.iterdir() if is_dir(p / "memory"))
    except OSError as exc:
        problems.append(SourceProblem(path=str(projects), reason=f"cannot be read: {exc.strerror or exc}"))
        folders = []
    for folder in folders:
        candidates = candidates_for(folder.name, known)
        cwd: str | None
        if folder.name in assign:
            cwd, note = assign[folder.name], "workspace chosen by the user"
        elif len(candidates) == 1:
            cwd, note = candidates[0], ""
        elif candidates:
            cwd = None
            note = "ambiguous: could be " + " or ".join(candidates) + "; say which with --cwd"
        else:
            cwd, note = None, "unknown: no known workspace encodes to this folder; say which with --cwd"
        found = _read_folder(folder, cwd, problems)
        entries += found
        scopes.append(
            SourceScope(
                key=folder.name,
                cwd=cwd,
                path=str(folder / "memory"),
                entries=len(found),
                cwd_exists=is_dir(Path(cwd)) if cwd else None,
                candidates=candidates,
                note=note,
            )
        )
        if cwd is None:
            problems.append(SourceProblem(path=str(folder), reason=note, severity="note"))
    return SourceSnapshot(
        kind=KIND, path=str(projects), scopes=tuple(scopes), entries=tuple(entries), problems=tuple(problems)
    )
