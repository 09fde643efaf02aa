"""The restricted consolidator's read-only tools, and the transcript of what the model saw.

With endpoints that support OpenAI tool calling, the model may look at existing memory before it
proposes: ``search_memory(query)``, ``read_record(name)``, ``read_global()``, then answers with
``submit_proposal`` (or the JSON object). The tools read only the snapshot the review is based on —
the source workspace and Global — so what the model saw is what the commit is compared against.
Results are bounded in bytes; a name that is not a record of this workspace (another workspace's,
a path) is an error result, never a read elsewhere.

Every call and result goes into a :class:`~core.consolidation.proposals.Transcript` kept privately
with the review ("What the model saw"); it is never written to receipts or debug logs.
"""

from __future__ import annotations

import json
from typing import Any

from core.consolidation.base import ConsolidationInput
from core.consolidation.context import RecordSearch

RESULT_BYTES = 8_000
"""The most one tool result may hold (a record is ≤ 256 KiB on disk; the model gets its start)."""
SEARCH_LIMIT = 8

_STRING = {"type": "string"}
TOOL_DEFINITIONS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "search_memory",
            "description": "Search this workspace's existing records (names, descriptions, bodies). "
            "Returns up to 8 matches with name, description and a snippet.",
            "parameters": {"type": "object", "properties": {"query": _STRING}, "required": ["query"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read_record",
            "description": "Read one existing record of this workspace by its name (as listed in the index).",
            "parameters": {"type": "object", "properties": {"name": _STRING}, "required": ["name"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read_global",
            "description": "Read the whole current GLOBAL.md.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "submit_proposal",
            "description": "Submit the final proposal: the same JSON object described in the instructions "
            '({"summary": ..., "changes": [...]}). Call it exactly once, at the end.',
            "parameters": {
                "type": "object",
                "properties": {"summary": _STRING, "changes": {"type": "array", "items": {"type": "object"}}},
                "required": ["changes"],
            },
        },
    },
]
READ_TOOLS = frozenset({"search_memory", "read_record", "read_global"})
SUBMIT = "submit_proposal"


def _bounded(text: str, limit: int = RESULT_BYTES) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    cut = data[: limit - 60].decode("utf-8", errors="ignore")
    return cut + f"\n… [cut at {limit:,} of {len(data):,} bytes]"


class ToolError(ValueError):
    """A tool call the host refuses. ``malformed``: not a well-formed call at all (unknown tool,
    arguments that are not a JSON object), as opposed to a well-formed call for something the
    model may not read (another workspace's record)."""

    def __init__(self, message: str, *, malformed: bool = False) -> None:
        super().__init__(message)
        self.malformed = malformed


class MemoryTools:
    """Executes the read-only tools over one review's snapshot."""

    def __init__(self, request: ConsolidationInput) -> None:
        self.request = request
        self.search = RecordSearch(request)
        self._records = {r.name: r for r in request.records}

    def call(self, tool: str, arguments: str) -> str:
        """The result text of one call; ToolError for a call the host refuses (the model is told why)."""
        if tool not in READ_TOOLS:
            raise ToolError(
                f"unknown tool {tool!r}; the tools are search_memory, read_record, read_global", malformed=True
            )
        try:
            args = json.loads(arguments or "{}")
        except json.JSONDecodeError as exc:
            raise ToolError(f"the arguments of {tool} are not valid JSON ({exc.msg})", malformed=True) from None
        if not isinstance(args, dict):
            raise ToolError(f"the arguments of {tool} must be a JSON object", malformed=True)
        if tool == "read_global":
            return _bounded(self.request.global_text or "(GLOBAL.md is empty)")
        if tool == "read_record":
            return self._read(args.get("name"))
        return self._search(args.get("query"))

    def _read(self, name: Any) -> str:
        if not isinstance(name, str) or not name.strip():
            raise ToolError("read_record needs a record name")
        name = name.strip().removesuffix(".md")
        if "/" in name or "\\" in name or name.startswith(".") or ":" in name:
            raise ToolError(f"{name!r} is not a record name of this workspace; only this workspace can be read")
        record = self._records.get(name)
        if record is None:
            raise ToolError(f"there is no record {name!r} in this workspace (see the index for the names)")
        return _bounded(
            f"name: {record.name}\ndescription: {record.description}\ntype: {record.type}\n\n{record.body.strip()}"
        )

    def _search(self, query: Any) -> str:
        if not isinstance(query, str) or not query.strip():
            raise ToolError("search_memory needs a query")
        hits = self.search.search(query.strip(), SEARCH_LIMIT)
        if not hits:
            return "No matching records."
        return _bounded("\n".join(f"- {r.name} — {r.description}\n  {r.body.strip()[:200]}" for r in hits))


__all__ = [
    "READ_TOOLS",
    "SUBMIT",
    "TOOL_DEFINITIONS",
    "MemoryTools",
    "ToolError",
]
