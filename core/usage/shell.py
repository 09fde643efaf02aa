"""The paths a shell command line (``bash``/``pwsh`` tool) reads, searches, lists or writes.

A best-effort reading of the words, never an execution: the line is split with :mod:`shlex` into
simple commands (at ``;``, ``&&``, ``||``, ``|``, ``&``), ``cd DIR`` moves the cwd for the rest of
the line, and a small table says which commands read (``cat``, ``head``, ``tail``, ``sed -n``...),
search (``grep``, ``rg``...), list (``ls``, ``find``...) or write (``sed -i``, ``tee``, ``>``).
Variables, globs in paths and sub-shells are not expanded: such a word is taken literally, and
usually lands outside the root (so it is not counted rather than guessed).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterator

from core.usage.types import Access

READ_COMMANDS = frozenset(
    {"cat", "head", "tail", "less", "more", "bat", "nl", "wc", "sed", "awk", "get-content", "gc", "type"}
)
SEARCH_COMMANDS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "select-string", "sls"})
LIST_COMMANDS = frozenset({"ls", "find", "tree", "fd", "dir", "get-childitem", "gci"})
WRITE_COMMANDS = frozenset({"tee", "touch", "set-content", "add-content", "out-file"})
_PREFIX_WORDS = frozenset({"sudo", "command", "env", "time", "nice", "exec", "builtin"})
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", ";;", "|&", "\n"})
_REDIRECTS = {">": "edited", ">>": "edited", "<": "opened", "&>": "edited", ">|": "edited"}
# Options that take the next word as their value (so it is neither a pattern nor a path).
_VALUE_OPTIONS = {
    "head": {"-n", "-c"},
    "tail": {"-n", "-c"},
    "sed": {"-e", "-f", "-l"},
    "awk": {"-f", "-v", "-F"},
    "grep": {"-e", "-f", "-m", "-A", "-B", "-C", "--include", "--exclude", "--exclude-dir", "--max-count"},
    "rg": {"-e", "-f", "-m", "-A", "-B", "-C", "-g", "--glob", "-t", "--type", "-T", "--type-not", "--max-count",
           "-M", "--max-columns", "-j", "--threads", "--iglob", "--max-depth", "-d"},
    "find": set(),
    "fd": {"-e", "--extension", "-t", "--type", "-d", "--max-depth", "-E", "--exclude"},
    "select-string": {"-pattern", "-path", "-literalpath", "-encoding", "-context"},
    "get-content": {"-path", "-literalpath", "-totalcount", "-tail", "-head", "-encoding"},
    "get-childitem": {"-path", "-literalpath", "-filter", "-include", "-exclude", "-depth"},
}  # fmt: skip
_ALIASES = {"egrep": "grep", "fgrep": "grep", "ag": "rg", "ack": "rg", "sls": "select-string", "gc": "get-content",
            "type": "get-content", "gci": "get-childitem", "dir": "get-childitem"}  # fmt: skip


_PLAIN = re.compile(r"&&|\|\||>>|&>|[;|&()<>]|[^\s;|&()<>]+")


def _tokens(command: str) -> list[str]:
    if not any(c in command for c in "'\"\\$`#"):
        return _PLAIN.findall(command)  # no quoting: the common case, without shlex's per-character loop
    lexer = shlex.shlex(command.replace("\r", " "), posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # an unclosed quote: fall back to whitespace words
        return command.split()


def _simple_commands(tokens: list[str]) -> Iterator[list[str]]:
    current: list[str] = []
    for token in tokens:
        if token in _SEPARATORS:
            if current:
                yield current
            current = []
        else:
            current.append(token)
    if current:
        yield current


def shell_accesses(command: str, cwd: str | None) -> Iterator[Access]:
    """Accesses named by one command line run in ``cwd``."""
    for words in _simple_commands(_tokens(command[:65536])):
        words, redirected = _strip_redirects(words)
        for kind, target in redirected:
            yield Access(kind, target, cwd)  # type: ignore[arg-type]
        while words and (("=" in words[0] and not words[0].startswith(("-", "="))) or words[0] in _PREFIX_WORDS):
            words = words[1:]
        if not words:
            continue
        word = posixpath.basename(words[0]).lower()
        args = words[1:]
        if word == "cd":
            target = args[0] if args else "~"
            if target.startswith("~"):
                cwd = posixpath.expanduser(target)
            elif posixpath.isabs(target):
                cwd = posixpath.normpath(target)
            elif cwd is not None:
                cwd = posixpath.normpath(posixpath.join(cwd, target))
            continue
        if word == "git" and args[:1] == ["grep"]:
            word, args = "grep", args[1:]
        yield from _command(word, args, cwd)


def _strip_redirects(words: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    kept: list[str] = []
    out: list[tuple[str, str]] = []
    skip = False
    for i, word in enumerate(words):
        if skip:
            skip = False
            continue
        kind = _REDIRECTS.get(word)
        if kind is not None:
            if i + 1 < len(words) and not words[i + 1].startswith("&"):
                out.append((kind, words[i + 1]))
            skip = True
            continue
        if word.isdigit() and i + 1 < len(words) and words[i + 1] in _REDIRECTS:
            continue  # "2>" in "2> /dev/null"
        kept.append(word)
    return kept, out


def _split_args(word: str, args: list[str]) -> tuple[list[str], list[str], dict[str, str]]:
    """(options, positionals, option values) with this command's value-taking options consumed."""
    takes = _VALUE_OPTIONS.get(_ALIASES.get(word, word), set())
    options: list[str] = []
    positionals: list[str] = []
    values: dict[str, str] = {}
    i = 0
    ended = False
    while i < len(args):
        arg = args[i]
        lowered = arg.lower() if word in _PWSH_WORDS else arg
        if not ended and arg == "--":
            ended = True
        elif not ended and arg.startswith("-") and len(arg) > 1:
            name, eq, inline = lowered.partition("=")
            if eq:
                values[name] = inline
                options.append(name)
            elif lowered in takes and i + 1 < len(args):
                values[lowered] = args[i + 1]
                options.append(lowered)
                i += 1
            else:
                options.append(arg)
        else:
            positionals.append(arg)
        i += 1
    return options, positionals, values


_PWSH_WORDS = frozenset({"get-content", "gc", "type", "select-string", "sls", "get-childitem", "gci", "dir"})


def _has_short(options: list[str], letter: str) -> bool:
    return any(o.startswith("-") and not o.startswith("--") and letter in o[1:] for o in options)


def _command(word: str, args: list[str], cwd: str | None) -> Iterator[Access]:
    options, positionals, values = _split_args(word, args)
    canonical = _ALIASES.get(word, word)
    if canonical == "sed" and (_has_short(options, "i") or "--in-place" in options):
        files = positionals if ("-e" in values or "-f" in values) else positionals[1:]
        yield from (Access("edited", p, cwd) for p in files)
        return
    if word in READ_COMMANDS:
        if canonical in ("sed", "awk") and not ("-e" in values or "-f" in values):
            positionals = positionals[1:]  # the script
        if canonical == "get-content":
            positionals = positionals + [v for k, v in values.items() if k in ("-path", "-literalpath")]
        yield from (Access("opened", p, cwd) for p in positionals)
        return
    if word in SEARCH_COMMANDS:
        yield from _search(canonical, options, positionals, values, cwd)
        return
    if word in LIST_COMMANDS:
        if canonical == "find":
            paths = [p for p in positionals if not p.startswith(("(", "!"))][:1] or ["."]
            name = _find_name(args)
            yield from (Access("listed", p, cwd, recursive=True, glob=name) for p in paths)
        elif canonical == "fd":
            paths = positionals[1:] or ["."]
            yield from (Access("listed", p, cwd, recursive=True) for p in paths)
        elif canonical == "get-childitem":
            paths = positionals + [v for k, v in values.items() if k in ("-path", "-literalpath")] or ["."]
            recurse = any(o.lower() == "-recurse" for o in options)
            yield from (Access("listed", p, cwd, recursive=recurse, glob=values.get("-filter")) for p in paths)
        else:
            recurse = canonical == "tree" or _has_short(options, "R") or "--recursive" in options
            yield from (Access("listed", p, cwd, recursive=recurse) for p in (positionals or ["."]))
        return
    if word in WRITE_COMMANDS:
        yield from (Access("edited", p, cwd) for p in positionals)


def _find_name(args: list[str]) -> str | None:
    for flag in ("-name", "-iname"):
        if flag in args:
            i = args.index(flag)
            if i + 1 < len(args):
                return args[i + 1]
    return None


def _search(
    word: str, options: list[str], positionals: list[str], values: dict[str, str], cwd: str | None
) -> Iterator[Access]:
    pattern = values.get("-e") or values.get("-pattern") or values.get("--regexp")
    rest = list(positionals)
    if pattern is None:
        if not rest:
            return
        pattern = rest.pop(0)
    if word == "select-string":
        rest += [v for k, v in values.items() if k in ("-path", "-literalpath")]
        ignore_case = not any(o.lower() == "-casesensitive" for o in options)  # PowerShell ignores case by default
        fixed = any(o.lower() == "-simplematch" for o in options)
        recursive = False
    else:
        ignore_case = (
            _has_short(options, "i")
            or "--ignore-case" in options
            or (word == "rg" and (_has_short(options, "S") or "--smart-case" in options) and pattern == pattern.lower())
        )
        fixed = _has_short(options, "F") or "--fixed-strings" in options or word == "fgrep"
        recursive = word == "rg" or _has_short(options, "r") or _has_short(options, "R") or "--recursive" in options
    if not rest:
        if not recursive:
            return  # grep without a file reads its standard input
        rest = ["."]
    glob = values.get("-g") or values.get("--glob") or values.get("--include") or values.get("--iglob")
    for path in rest:
        yield Access("matched", path, cwd, pattern=pattern, ignore_case=ignore_case, fixed=fixed,
                     recursive=recursive, glob=glob)  # fmt: skip
