"""``dsh-memory [--root PATH] [--json] COMMAND``: argument parsing, output and error mapping.

Commands live in sibling modules (``store_commands``, ``search_commands``, ``session_commands``);
each exposes ``register(subparsers)`` and sets ``handler`` on its parsers. A handler receives the
parsed args and a :class:`Context` and returns a :class:`Result`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from functools import cached_property

from core.errors import DshMemoryError, UsageError
from core.frozen import Frozen
from core.keys import resolve_root
from core.version import __version__

# (no ``dataclasses``, ``typing`` or ``json`` at run time: a one-shot command's start-up, issue 24)
TYPE_CHECKING = False  # (mypy reads this name as True)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import Any, NoReturn, TextIO

    Handler = Callable[[argparse.Namespace, "Context"], "Result"]

COMMAND_MODULES = (
    "core.cli.store_commands",
    "core.cli.search_commands",
    "core.cli.session_commands",
    "core.cli.mcp_commands",  # after session_commands: adds --pending to its `reviews`
    "core.cli.source_commands",
    "core.cli.sync_commands",
    "core.cli.usage_commands",  # issue 30: dsh-memory usage
)
# Commands an agent's shell tool runs one-shot: only their own module is imported, so start-up
# does not pay for every command group (pydantic models, the store, model clients...).
FAST_COMMANDS = {
    "search": "core.cli.search_commands",
    "recall": "core.cli.search_commands",
    "sync": "core.cli.sync_commands",  # a no-op sync should cost what the sync costs (issue 28)
    "move": "core.cli.sync_commands",
}


class Result(Frozen):
    """What a command produced: ``data`` for ``--json``, ``text`` for people, and the exit code."""

    data: Any
    text: str = ""
    exit_code: int = 0


class Context:
    """What a handler works with: the root, the output mode and streams, the store (opened on first use)."""

    def __init__(self, root: Path, json: bool, stdout: TextIO | None = None, stderr: TextIO | None = None) -> None:
        self.root = root
        self.json = json
        self.stdout: TextIO = stdout or sys.stdout
        self.stderr: TextIO = stderr or sys.stderr  # progress lines (stdout stays clean)

    @cached_property
    def store(self) -> Any:
        from core.store.fs import FileStore

        store = FileStore(self.root)
        store.history.actor = "cli"  # the commit log names the CLI as the committer (MCP memory_recent shows it)
        return store


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` finds it ($COLUMNS, the terminal, 80)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class _Formatter(argparse.HelpFormatter):
    """argparse's own layout; the width found without importing ``shutil`` (which argparse does for
    every parser and argument: ``shutil`` with ``bz2`` and ``lzma`` is 2 ms of a one-shot command)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


class _Parser(argparse.ArgumentParser):
    """argparse that raises UsageError instead of exiting, so ``--json`` gets a JSON error too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}. Run `dsh-memory --help` for the list of commands.")


def command_word(argv: Sequence[str]) -> str | None:
    """The command named by ``argv`` (after the global options), if any."""
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--root":
            i += 2
            continue
        if arg.startswith("-"):
            i += 1
            continue
        return arg
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The CLI parser; given ``argv`` naming a command of FAST_COMMANDS, with only that module."""
    parser = _Parser(prog="dsh-memory", description="Manage DeepSeek Harness long-term memory.")
    parser.add_argument("--root", help="memory root (default: $DSH_MEMORY_ROOT, $DSH_HOME/memory, ~/.dsh/memory)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--version", action="version", version=f"dsh-memory {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    fast = None
    if argv is not None and not {"-h", "--help"} & set(argv):
        fast = FAST_COMMANDS.get(command_word(argv) or "")
    for module_name in (fast,) if fast is not None else COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # a command group not built yet
            if exc.name != module_name:
                raise
            continue
        module.register(sub)
    return parser


def _emit_error(err: DshMemoryError, as_json: bool, out: TextIO, err_out: TextIO) -> None:
    if as_json:
        import json

        out.write(json.dumps({"error": err.to_json()}, ensure_ascii=False) + "\n")
    else:
        err_out.write(f"error: {err.message}\n")
        for reason in getattr(err, "reasons", ()) or ():
            if reason != err.message:
                err_out.write(f"  - {reason}\n")


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    err_out = stderr or sys.stderr
    args_list = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args_list
    try:
        parser = build_parser(args_list)
        args = parser.parse_args(args_list)
        handler: Handler | None = getattr(args, "handler", None)
        if handler is None:
            parser.print_help(out)
            return 2
        ctx = Context(root=resolve_root(args.root), json=args.json, stdout=out, stderr=err_out)
        result = handler(args, ctx)
    except DshMemoryError as err:
        _emit_error(err, as_json, out, err_out)
        return err.exit_code  # one per kind, listed in core/errors.py and the README
    except KeyboardInterrupt:
        err_out.write("interrupted; nothing was written by the interrupted step\n")
        return 130
    if args.json:
        import json

        out.write(json.dumps(result.data, ensure_ascii=False, indent=2, default=str) + "\n")
    elif result.text:
        out.write(result.text if result.text.endswith("\n") else result.text + "\n")
    return result.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
