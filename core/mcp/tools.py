"""The MCP surface of the memory server: tool schemas per write mode, argument validation against
those same schemas, and the two prompts. Protocol-free data (the server binds it to the SDK).

Every read answers with an ``observed`` handle (``core.mcp.handles``); every write takes one.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # ships no stubs

from core.errors import UsageError
from core.mcp.agent import WriteMode
from core.mcp.edits import EDIT_OPS

_NAME = {"type": "string", "description": "record name (kebab-case, as memory_index lists it)"}
_OBSERVED = {
    "type": "string",
    "description": "the `observed` handle of your latest read of this memory (memory_recall, memory_search, "
    "memory_read, memory_index, memory_related) or of your previous write; pass it back unchanged",
}
_CURSOR = {"type": "string", "description": "next_cursor of the previous page (omit for the first page)"}
_PUT = {
    "type": "object",
    "properties": {
        "op": {"const": "put"},
        "name": _NAME,
        "description": {"type": "string", "description": "one-line relevance hook"},
        "type": {"enum": ["feedback", "project", "reference"]},
        "body": {"type": "string", "description": "the fact, then **Why:** and **How to apply:** lines"},
    },
    "required": ["op", "name", "description", "type", "body"],
    "additionalProperties": False,
}
_DELETE = {
    "type": "object",
    "properties": {"op": {"const": "delete"}, "name": _NAME},
    "required": ["op", "name"],
    "additionalProperties": False,
}
_REASON = {"type": "string", "description": "why, in one or two sentences the user will read"}

SEARCH_MAX_LIMIT = 50


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def tool_list(writes: WriteMode, allow_global: bool) -> list[types.Tool]:
    read_only = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writing = types.ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)
    tools = [
        types.Tool(
            name="memory_recall",
            description="Global memory and this workspace's records relevant to a query, as one bounded text "
            "(the same text for the same memory and query), then an `observed` handle line. Call it when past "
            "decisions, conventions or the user's preferences may matter.",
            input_schema=_schema({"query": {"type": "string", "description": "what you are working on"}}, ["query"]),
            annotations=read_only,
        ),
        types.Tool(
            name="memory_search",
            description="Search Global memory and this workspace's records; hits with snippets, paged "
            "(next_cursor continues), and an `observed` handle.",
            input_schema=_schema(
                {
                    "query": {"type": "string"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_MAX_LIMIT, "default": 10},
                    "cursor": _CURSOR,
                },
                ["query"],
            ),
            annotations=read_only,
        ),
        types.Tool(
            name="memory_read",
            description="One record of this workspace, whole (frontmatter and body), then an `observed` handle.",
            input_schema=_schema({"name": _NAME}, ["name"]),
            annotations=read_only,
        ),
        types.Tool(
            name="memory_index",
            description="MEMORY.md of this workspace: every record name with its one-line description (paged "
            "past 64 KB with a cursor), then an `observed` handle.",
            input_schema=_schema({"cursor": _CURSOR}, []),
            annotations=read_only,
        ),
        types.Tool(
            name="memory_related",
            description="Records linked with [[name]] both ways: those this record links to and those linking "
            "to it, with descriptions.",
            input_schema=_schema({"name": _NAME}, ["name"]),
            annotations=read_only,
        ),
        types.Tool(
            name="memory_recent",
            description="What changed in this workspace's memory and in Global, newest first, and who changed "
            "it (the app, the CLI, a session consolidation, an agent, another program): since an ISO time, "
            "or since the read an `observed` handle came from, else the latest changes.",
            input_schema=_schema(
                {
                    "since": {"type": "string", "description": "ISO-8601 time, e.g. 2026-07-28T09:00:00Z"},
                    "observed": _OBSERVED,
                },
                [],
            ),
            annotations=read_only,
        ),
    ]
    if allow_global:
        tools.append(
            types.Tool(
                name="memory_read_global",
                description="The whole GLOBAL.md (read it before replace_global), then an `observed` handle.",
                input_schema=_schema({}, []),
                annotations=read_only,
            )
        )
    if writes == "off":
        return tools
    after = (
        " Nothing is written yet: it becomes a proposal the user reviews; the answer has its id."
        if writes == "review"
        else " Committed at once, compare-and-swap against what your handle says you read."
    )
    tools.append(
        types.Tool(
            name="memory_update",
            description="Change this workspace's memory in one batch: put whole records (create or replace) "
            "and delete records by name. Read first and pass that read's `observed` handle; refused if the "
            "memory changed since, if a name is not kebab-case, or if a value looks like a credential." + after,
            input_schema=_schema(
                {
                    "changes": {"type": "array", "items": {"oneOf": [_PUT, _DELETE]}, "minItems": 1},
                    "reason": _REASON,
                    "observed": _OBSERVED,
                },
                ["changes", "reason", "observed"],
            ),
            annotations=writing,
        )
    )
    tools.append(
        types.Tool(
            name="memory_edit",
            description="Edit one record in place: append text, replace the section under a heading, or "
            "replace one exact passage (find_replace: `old` must occur exactly once). The result is the whole "
            "record, checked like memory_update. Pass the `observed` handle of your read." + after,
            input_schema=_schema(
                {
                    "name": _NAME,
                    "op": {"enum": list(EDIT_OPS)},
                    "text": {"type": "string", "description": "append: what to add; replace_section: new text"},
                    "heading": {"type": "string", "description": "replace_section: the heading's text"},
                    "old": {"type": "string", "description": "find_replace: the exact passage to replace"},
                    "new": {"type": "string", "description": "find_replace: its replacement"},
                    "reason": _REASON,
                    "observed": _OBSERVED,
                },
                ["name", "op", "reason", "observed"],
            ),
            annotations=writing,
        )
    )
    if allow_global:
        tools.append(
            types.Tool(
                name="replace_global",
                description="Replace the whole GLOBAL.md (facts about the user in general, never about this "
                "project). Read it whole first with memory_read_global and pass its `observed` handle." + after,
                input_schema=_schema(
                    {"text": {"type": "string"}, "reason": _REASON, "observed": _OBSERVED},
                    ["text", "reason", "observed"],
                ),
                annotations=writing,
            )
        )
    return tools


def check_arguments(tool: types.Tool, args: dict[str, Any]) -> None:
    """Arguments checked against the tool's own input schema: UsageError naming every problem."""
    problems = []
    schema = dict(tool.input_schema)
    # A write without a handle is refused by the write itself, with the "read again" answer.
    schema["required"] = [k for k in schema.get("required", []) if k != "observed"]
    for err in sorted(Draft202012Validator(schema).iter_errors(args), key=lambda e: list(e.path)):
        where = "/".join(str(p) for p in err.absolute_path) or "arguments"
        if err.validator == "oneOf" and isinstance(err.instance, dict):
            msg = "each change must be {op: put, name, description, type, body} or {op: delete, name}"
        elif err.validator == "additionalProperties":
            msg = err.message + " (no paths, keys or revisions)"
        else:
            msg = err.message
        problems.append(f"{where}: {msg}")
    if problems:
        raise UsageError(
            f"Invalid arguments for {tool.name}: " + "; ".join(problems[:8]) + ". Nothing was done; see the tool's "
            "input schema."
        )


PROMPTS = {
    "remember": (
        "How to save a fact to DSH memory by the rules of this memory (search first, update or skip, scope).",
        [types.PromptArgument(name="fact", description="what the user asked you to remember", required=True)],
    ),
    "review-memory": (
        "A pass over this workspace's memory for stale, duplicate or wrong records, proposing fixes.",
        [],
    ),
}


def prompt_text(name: str, arguments: dict[str, str]) -> str:
    if name == "remember":
        fact = arguments.get("fact", "").strip()
        return (
            f"The user asked you to remember: {fact}\n\n"
            "Save it to DSH memory only if it is clear, stable and reusable, and the repository does not "
            "already record it. First search what is there (memory_search, then memory_read on a likely "
            "record). If the same fact is already recorded, do nothing; if a record says something related "
            "or outdated, change that record (memory_edit for a small change, memory_update with a whole put "
            "otherwise) instead of adding a duplicate; else put a new record: a kebab-case name, a one-line "
            "description, type feedback|project|reference, and a body with the fact, then **Why:** and "
            "**How to apply:** lines. Pass the `observed` handle of your latest read. Never store a secret. "
            "When unsure whether it is about the user in general, keep it in this workspace or do not write. "
            "Say why in `reason` in words the user will read."
        )
    return (
        "Review this workspace's memory. Read memory_index, then memory_read the records that look stale, "
        "duplicated or contradictory (memory_recent shows what changed lately; memory_related shows linked "
        "records). For each problem propose one fix: merge duplicates into one record and delete the rest, "
        "correct or delete wrong records, leave anything you cannot verify. Use memory_update or memory_edit "
        "with the `observed` handle of your latest read and a reason per change; do not touch records that are "
        "fine. Finish with a short list of what you proposed and why."
    )
