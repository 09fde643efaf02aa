"""What the model consolidator is shown first: a bounded context, not the whole workspace.

The first request carries the evidence, ``GLOBAL.md``, the workspace's index (names and
descriptions, as in ``MEMORY.md``) and the few existing records most relevant to the evidence
(found with the search index), all within ``AppSettings.model_input_budget_bytes``. The rest of
the workspace stays one ``search_memory``/``read_record`` tool call away (``core.consolidation.tools``).

Nothing is cut silently. The required parts (instructions, evidence, Global) must fit the budget or
the run stops with ``evidence-too-large``; the index is shortened in explicit, announced steps
(descriptions shortened, then names only, then only the most relevant names with a count of the rest);
relevant records are included whole, as many as fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.consolidation.base import ConsolidationInput
from core.errors import EvidenceTooLargeError
from core.models import PutOp, Record

if TYPE_CHECKING:
    from core.search import SearchIndex

INDEX_SHARE_BYTES = 40_000
"""The most the index may take of the first request (a 1,000-record workspace's names fit)."""
RECORDS_SHARE_BYTES = 16_000
TOP_K = 8
_SHORT_DESCRIPTION = 60


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


@dataclass(frozen=True)
class ModelContext:
    """The first request's user message and what went into it (for the review header and benchmarks)."""

    text: str
    index_form: str  # "full" | "short-descriptions" | "names" | "top-names"
    indexed: int  # records listed in the index
    included: tuple[str, ...]  # records included whole

    @property
    def size_bytes(self) -> int:
        return _size(self.text)


class RecordSearch:
    """The search index over one review's snapshot of the workspace (not the live store): what the
    model is shown is exactly what the commit will be compared against. Built on first use."""

    def __init__(self, request: ConsolidationInput) -> None:
        self._request = request
        self._by_name = {r.name: r for r in request.records}
        self._index: tuple[SearchIndex, str] | None = None

    def _built(self) -> tuple[SearchIndex, str]:
        if self._index is None:
            from core.search import SearchIndex
            from core.store.memory import InMemoryStore

            store = InMemoryStore()
            scope = store.create_workspace(self._request.cwd)
            ops = [PutOp(record=r) for r in self._request.records]
            # A private in-memory copy for searching: records the user saved anyway stay searchable.
            store.commit(scope.key, ops, scope.revision, allow_secrets=True)
            index = SearchIndex(store, cache_dir=False)
            index.refresh()
            self._index = (index, scope.key)
        return self._index

    def search(self, query: str, limit: int) -> list[Record]:
        if not self._by_name or not query.strip():
            return []
        index, key = self._built()
        hits = index.search(query, scopes=[key], limit=limit).hits
        return [self._by_name[h.name] for h in hits if h.name in self._by_name]

    def relevant(self, limit: int = TOP_K) -> list[Record]:
        """The records most relevant to what the user said in the session."""
        said = " ".join(m.text[:400] for t in self._request.evidence.turns for m in t.messages if m.role == "user")
        return self.search(said[:2000], limit)


def _index_lines(records: Sequence[Record], form: str) -> list[str]:
    if form == "full":
        return [f"- {r.name} — {r.description}" for r in records]
    if form == "short-descriptions":
        cut = _SHORT_DESCRIPTION
        return [f"- {r.name} — {r.description[:cut] + ('…' if len(r.description) > cut else '')}" for r in records]
    return [f"- {r.name}" for r in records]


_FORM_NOTES = {
    "full": "",
    "short-descriptions": (
        f"(descriptions shortened to {_SHORT_DESCRIPTION} characters; read_record shows a whole record)\n"
    ),
    "names": "(names only, to stay within the input budget; read_record shows a whole record)\n",
}


def _index_section(records: Sequence[Record], relevant: Sequence[Record], share: int) -> tuple[str, str, int]:
    ordered = sorted(records, key=lambda r: r.name)
    for form in ("full", "short-descriptions", "names"):
        body = "\n".join(_index_lines(ordered, form))
        if _size(body) <= share:
            return _FORM_NOTES[form] + (body or "(no records yet)"), form, len(ordered)
    # Not even the names fit: the most relevant first, then names in order while they fit.
    first = [r.name for r in relevant]
    rest = [r.name for r in ordered if r.name not in set(first)]
    lines: list[str] = []
    used = 0
    for name in [*first, *rest]:
        line = f"- {name}"
        if used + _size(line) + 1 > share - 200:
            break
        lines.append(line)
        used += _size(line) + 1
    more = len(ordered) - len(lines)
    note = f"({len(lines)} of {len(ordered)} names, most relevant first; search_memory finds the other {more})\n"
    return note + "\n".join(lines), "top-names", len(lines)


def _records_section(relevant: Sequence[Record], share: int) -> tuple[str, tuple[str, ...]]:
    parts: list[str] = []
    names: list[str] = []
    used = 0
    for r in relevant:
        part = f"### {r.name}\ndescription: {r.description}\ntype: {r.type}\n\n{r.body.strip()}\n"
        if used + _size(part) > share:
            continue  # a whole record or none of it; a smaller one further down may still fit
        parts.append(part)
        names.append(r.name)
        used += _size(part)
    return "\n".join(parts) or "(none)", tuple(names)


def build_context(
    request: ConsolidationInput,
    *,
    budget_bytes: int,
    system_bytes: int,
    tools: bool,
    search: RecordSearch | None = None,
) -> ModelContext:
    """The first user message for ``request``; EvidenceTooLargeError when the required parts exceed the budget."""
    how = (
        "Use the tools search_memory, read_record and read_global to look at other existing memory "
        "before you propose a record that might already exist; then call submit_proposal once."
        if tools
        else "Reply with the JSON object only."
    )

    def assemble(index: str, records: str) -> str:
        return (
            f"Workspace: {request.cwd} ({len(request.records)} records)\n\n"
            "## Current GLOBAL.md\n\n"
            f"{request.global_text.strip() or '(empty)'}\n\n"
            "## Workspace index (MEMORY.md)\n\n"
            f"{index}\n\n"
            "## Existing records most relevant to this session\n\n"
            f"{records}\n\n"
            "## Session evidence (seq numbers in brackets)\n\n"
            f"{request.evidence_text}\n\n"
            f"{how}"
        )

    required = system_bytes + _size(assemble("", ""))
    if required > budget_bytes:
        raise EvidenceTooLargeError(
            f"The session evidence and GLOBAL.md need {required:,} bytes, more than the model input budget "
            f"of {budget_bytes:,} bytes; nothing was sent. Raise the budget in Settings, or use the offline "
            "consolidator for this session.",
            reason="input-budget",
        )
    spare = budget_bytes - required
    relevant = (search or RecordSearch(request)).relevant()
    index, form, indexed = _index_section(request.records, relevant, min(INDEX_SHARE_BYTES, spare * 2 // 3))
    records, included = _records_section(relevant, min(RECORDS_SHARE_BYTES, spare - _size(index)))
    return ModelContext(text=assemble(index, records), index_form=form, indexed=indexed, included=included)
