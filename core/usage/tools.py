"""What one tool call did to files, from its name and arguments only (never its result).

Every call becomes zero or more :class:`Access` values: a kind (``opened``, ``matched``,
``listed``, ``edited`` or ``unknown``), the path it named and the cwd it was named in, plus the
search pattern / glob where there is one. Whether that path is memory is decided later
(:mod:`core.usage.paths`). The tables below name DSH's own tools (seen in its logs), common
aliases, and the filesystem MCP server's tools; any other name is *unknown*: its path-looking
arguments are still placed, but as ``unknown`` uses, never guessed to be a read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from core.usage.shell import shell_accesses
from core.usage.types import Access

READ_TOOLS = frozenset({"read", "read_file", "read_image", "view", "cat", "open", "read_text_file", "read_media_file"})
MULTI_READ_TOOLS = frozenset({"read_multiple_files", "read_many_files"})
GREP_TOOLS = frozenset({"grep", "search", "rg", "ripgrep", "search_content", "grep_search"})
GLOB_TOOLS = frozenset({"glob", "find_files", "file_search", "search_files"})
LIST_TOOLS = frozenset({"ls", "list", "list_dir", "list_directory", "directory_tree", "list_files"})
EDIT_TOOLS = frozenset({"edit", "multi_edit", "multiedit", "write", "write_file", "edit_file", "create_file"})
SHELL_TOOLS = frozenset({"bash", "pwsh", "shell", "sh", "powershell", "exec_command"})
EDITOR_TOOLS = frozenset({"str_replace_editor", "str_replace_based_edit_tool", "text_editor"})
# Tools that touch no file by themselves. run_code's inner calls arrive as their own
# tool/code-dispatch events, so the outer call is not read (it would count them twice).
OTHER_TOOLS = frozenset(
    {
        "run_code", "subagent", "subagent_codex", "subagent_fork", "todo_write", "todo_read", "workflow",
        "ask_user_question", "send_message", "get_goal", "update_goal", "set_goal", "lsp", "session_event_read",
        "skill", "list_agents", "report", "web_fetch", "web_search", "exit_plan_mode", "enter_plan_mode",
        "wait", "sleep", "think", "task", "agent",
    }
)  # fmt: skip
OTHER_PREFIXES = ("cordis_", "terminal_", "job_")
OWN_MCP_PREFIX = "memory_"  # dsh-memory mcp's tools: counted by the server itself (core.usage.note_served)
_PATH_KEYS = ("file_path", "path", "filePath", "file", "filename", "target_file")
_MAX_UNKNOWN_STRINGS = 64

ToolClass = Literal["memory", "other", "own-mcp", "unknown"]


@dataclass(frozen=True)
class Classified:
    tool_class: ToolClass
    accesses: tuple[Access, ...] = ()


def parse_arguments(raw: Any) -> Mapping[str, Any]:
    """``data.arguments``: JSON text in ``tool/call``, an object in ``tool/code-dispatch``."""
    if isinstance(raw, Mapping):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            return {}
        return value if isinstance(value, Mapping) else {}
    return {}


def _path_arg(args: Mapping[str, Any]) -> str | None:
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _flag(args: Mapping[str, Any], *names: str) -> bool:
    return any(args.get(n) is True for n in names)


def _grep(args: Mapping[str, Any], cwd: str | None) -> Iterator[Access]:
    pattern = args.get("pattern") or args.get("query") or args.get("regex")
    if not isinstance(pattern, str) or not pattern:
        return
    path = _path_arg(args) or "."
    glob = args.get("glob") or args.get("include")
    yield Access(
        "matched",
        path,
        cwd,
        pattern=pattern,
        ignore_case=_flag(args, "-i", "ignore_case", "case_insensitive", "ignoreCase", "caseInsensitive"),
        fixed=_flag(args, "fixed_strings", "literal", "-F"),
        recursive=True,
        glob=glob if isinstance(glob, str) and glob else None,
    )


def _name_parts(name: str) -> tuple[str | None, str]:
    """(MCP server, tool) for ``mcp__<server>__<tool>``; (None, name) otherwise."""
    if name.startswith("mcp__"):
        server, sep, tool = name[5:].partition("__")
        if sep and tool:
            return server, tool
    return None, name


def classify(name: str, args: Mapping[str, Any], cwd: str | None) -> Classified:
    """What a call named ``name`` with ``args`` (already parsed) touched, ``cwd`` being the session's."""
    server, tool = _name_parts(name)
    if server is not None and tool.startswith(OWN_MCP_PREFIX):
        return Classified("own-mcp")
    key = tool.lower()
    if key in READ_TOOLS:
        path = _path_arg(args)
        return Classified("memory", (Access("opened", path, cwd),) if path else ())
    if key in MULTI_READ_TOOLS:
        paths = args.get("paths") or args.get("file_paths")
        listed = [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []
        return Classified("memory", tuple(Access("opened", p, cwd) for p in listed))
    if key in GREP_TOOLS:
        return Classified("memory", tuple(_grep(args, cwd)))
    if key in GLOB_TOOLS:
        pattern = args.get("pattern") or args.get("glob")
        path = _path_arg(args) or "."
        glob = pattern if isinstance(pattern, str) and pattern else "*"
        return Classified("memory", (Access("listed", path, cwd, glob=glob, recursive="**" in glob),))
    if key in LIST_TOOLS:
        path = _path_arg(args) or "."
        return Classified("memory", (Access("listed", path, cwd, recursive=key == "directory_tree"),))
    if key in EDIT_TOOLS:
        path = _path_arg(args)
        return Classified("memory", (Access("edited", path, cwd),) if path else ())
    if key in EDITOR_TOOLS:
        path = _path_arg(args)
        if not path:
            return Classified("memory")
        command = args.get("command")
        if command == "view":
            return Classified("memory", (Access("listed" if path.endswith("/") else "opened", path, cwd),))
        return Classified("memory", (Access("edited", path, cwd),))
    if key in SHELL_TOOLS:
        command = args.get("command") or args.get("cmd") or args.get("script")
        if isinstance(command, list):
            command = " ".join(str(c) for c in command)
        if not isinstance(command, str):
            return Classified("memory")
        workdir = args.get("workdir") or args.get("cwd")
        here = workdir if isinstance(workdir, str) and workdir.startswith("/") else cwd
        return Classified("memory", tuple(shell_accesses(command, here)))
    if key in OTHER_TOOLS or key.startswith(OTHER_PREFIXES):
        return Classified("other")
    return Classified("unknown", tuple(Access("unknown", s, cwd) for s in _path_strings(args)))


def _path_strings(value: Any, depth: int = 0) -> Iterator[str]:
    """Strings in an unknown tool's arguments that look like paths (bounded walk)."""
    found = 0
    stack: list[tuple[Any, int]] = [(value, depth)]
    while stack and found < _MAX_UNKNOWN_STRINGS:
        item, level = stack.pop()
        if isinstance(item, str):
            if ("/" in item or item.endswith(".md")) and "\n" not in item and len(item) < 4096:
                found += 1
                yield item
        elif level < 4 and isinstance(item, Mapping):
            stack.extend((v, level + 1) for v in item.values())
        elif level < 4 and isinstance(item, list):
            stack.extend((v, level + 1) for v in item[:64])
