"""How one foreign entry becomes a proposed change: type mapping, names, duplicates, the Global text.

The rules themselves are listed in :mod:`core.sources.importer`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.consolidation.proposals import NoChange, Proposal, ProposedChange, ProposedRecord, PutRecord, ReplaceGlobal
from core.models import Record, RecordType
from core.sources.import_plan import ImportTarget, Skipped
from core.sources.models import SOURCE_LABELS, ForeignEntry
from core.sources.naming import kebab_name, unique_name

_URL = re.compile(r"https?://\S+")
_TYPE_MAP: dict[str, RecordType] = {
    "preference": "feedback",
    "feedback": "feedback",
    "decision": "project",
    "architecture": "project",
    "rule": "project",
    "fix": "project",
    "fact": "project",
    "project": "project",
    "todo": "project",
    "core": "project",
    "regular": "project",
    "reference": "reference",
}


def is_url_only(text: str) -> bool:
    """A note that is a link with at most a short label ("docs: https://…")."""
    urls = _URL.findall(text)
    if not urls:
        return False
    rest = _URL.sub(" ", text)
    return len(re.findall(r"\w+", rest)) <= 6


def record_type(entry: ForeignEntry) -> RecordType:
    """The documented type mapping (see the module docstring)."""
    mapped = _TYPE_MAP.get(entry.kind, "project")
    if mapped == "project" and is_url_only(entry.text):
        return "reference"
    return mapped


def _one_line(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", text.casefold()).split())


def provenance_line(entry: ForeignEntry) -> str:
    return f"_Imported from {SOURCE_LABELS[entry.source]}: entry `{entry.id}` ({entry.scope})._"


def _contains(haystack: str, needle: str) -> bool:
    n, h = _norm(needle), _norm(haystack)
    if not n:
        return False
    return n == h or (len(n) >= 12 and n in h)


def _description(entry: ForeignEntry) -> str:
    text = entry.description or entry.title or entry.text
    if entry.source == "project-memory":  # the title is the node (a topic); the entry is one fact in it
        text = f"{entry.title}: {entry.text}"
    return _one_line(text, 150) or entry.id


def name_base(entry: ForeignEntry) -> str:
    """The kebab-case name an entry would get before making it unique."""
    source = entry.title
    if entry.source == "project-memory" or not source:
        source = " ".join(entry.text.split()[:6]) if re.search(r"[A-Za-z]", entry.text) else entry.text[:12]
    if is_url_only(source):
        source = re.sub(r"https?://(www\.)?", "", source)
    return kebab_name(source)


def _entry_warnings(entry: ForeignEntry) -> list[str]:
    out: list[str] = []
    if entry.status == "conflict":
        out.append(
            f"{SOURCE_LABELS[entry.source]} marks this entry as a conflict: it {entry.status_detail}; "
            "accept only the side that is still true"
        )
    if entry.kind == "todo":
        out.append("a to-do item, not a durable fact: accept only if it still applies")
    if entry.kind not in _TYPE_MAP and entry.kind != "user":
        out.append(f"unknown kind {entry.kind!r}, imported as a project record")
    return out


def workspace_proposal(target: ImportTarget, records: Sequence[Record]) -> tuple[Proposal, dict[str, tuple[str, ...]]]:
    existing = {r.name: r for r in records}
    taken = set(existing)
    changes: list[ProposedChange] = []
    warnings: dict[str, tuple[str, ...]] = {}
    seen: dict[str, str] = {}  # normalized text -> the change that imports it
    for seq, e in enumerate(target.entries, start=1):
        cid = f"c{seq}"
        label = f"{SOURCE_LABELS[e.source]} entry {e.id}"
        marker = provenance_line(e)
        earlier = next((r for r in records if marker in r.body), None)
        duplicate = next((r for r in records if _contains(r.body, e.text)), None)
        if duplicate is not None:
            changes.append(NoChange(reason=f"{label} is already in memory as {duplicate.name}.md", evidence=(seq,)))
            continue
        same = seen.get(_norm(e.text))
        if same is not None:
            changes.append(NoChange(reason=f"{label} says the same as {same}", evidence=(seq,)))
            continue
        seen[_norm(e.text)] = cid
        if earlier is not None:
            name, reason = earlier.name, f"updates {earlier.name}.md, imported earlier from {label} (it changed there)"
        else:
            name = unique_name(name_base(e), taken, fallback=kebab_name(e.id) or "imported-entry")
            taken.add(name)
            reason = f"imported from {label} ({e.scope})"
        body = f"{e.text.strip()}\n\n{marker}\n"
        record = ProposedRecord(name=name, description=_description(e), type=record_type(e), body=body)
        changes.append(PutRecord(record=record, reason=reason, evidence=(seq,), workspace=target.cwd))
        extra = _entry_warnings(e)
        if extra:
            warnings[cid] = tuple(extra)
    summary = (
        f"{len(target.entries)} entr{'y' if len(target.entries) == 1 else 'ies'} from {SOURCE_LABELS[target.kind]}"
    )
    return Proposal(changes=tuple(changes), summary=summary), warnings


def _append_to_section(text: str, heading: str, lines: Sequence[str]) -> str:
    block = "\n".join(lines)
    rows = text.splitlines()
    if heading in rows:
        start = rows.index(heading)
        end = next((i for i in range(start + 1, len(rows)) if rows[i].startswith("## ")), len(rows))
        while end > start + 1 and not rows[end - 1].strip():
            end -= 1
        rows[end:end] = lines
        return "\n".join(rows) + "\n"
    prefix = text.rstrip("\n")
    return (prefix + "\n\n" if prefix else "") + f"{heading}\n\n{block}\n"


def global_proposal(target: ImportTarget, global_text: str) -> tuple[Proposal, list[Skipped]]:
    from core.secrets import has_secrets

    changes: list[ProposedChange] = []
    skipped: list[Skipped] = []
    lines: list[str] = []
    seqs: list[int] = []
    for seq, e in enumerate(target.entries, start=1):
        line = "- " + _one_line(e.text, 400)
        if _contains(global_text, e.text) or line in lines:
            changes.append(
                NoChange(reason=f"{SOURCE_LABELS[e.source]} entry {e.id} is already in GLOBAL.md", evidence=(seq,))
            )
        elif has_secrets(e.text):
            skipped.append(Skipped(e, "looks like it contains a credential; refused (not added to GLOBAL.md)"))
        else:
            lines.append(line)
            seqs.append(seq)
    if lines:
        heading = f"## Imported from {SOURCE_LABELS[target.kind]}"
        text = _append_to_section(global_text, heading, lines)
        reason = f"adds {len(lines)} fact(s) about you from {SOURCE_LABELS[target.kind]} to GLOBAL.md"
        changes.insert(0, ReplaceGlobal(text=text, reason=reason, evidence=tuple(seqs)))
    summary = f"{len(target.entries)} fact(s) about you from {SOURCE_LABELS[target.kind]}"
    return Proposal(changes=tuple(changes), summary=summary), skipped
