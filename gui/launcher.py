"""Entry point of ``dsh-memory``: a command runs the headless CLI; no command opens the window.

Kept free of Qt imports so ``dsh-memory status`` works without a display or Qt libraries.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

_WINDOW_FLAGS = {"--self-test", "--demo"}
_READ_ONLY_ONE_SHOT = {"search", "recall"}  # what an agent's shell tool runs, where start-up and exit are the time


def _wants_window(argv: Sequence[str]) -> bool:
    """True when argv holds only global options (``--root X``, ``--lang X``), window flags, or nothing."""
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--root", "--lang"):
            i += 2
            continue
        if arg.startswith(("--root=", "--lang=")) or arg in _WINDOW_FLAGS:
            i += 1
            continue
        return False
    return True


def relaunch_command(argv: Sequence[str], executable: str, *, frozen: bool, module: str | None) -> list[str]:
    """The command that starts this app again as it was started, without a one-run ``--lang``.

    ``module``: the ``-m`` module it was started as (``python -m gui.launcher``), else None (the
    ``dsh-memory`` script, or a frozen app whose executable is the app itself).
    """
    args, rest = [], list(argv[1:])
    while rest:
        arg = rest.pop(0)
        if arg == "--lang":
            rest[:1] = []
        elif not arg.startswith("--lang="):
            args.append(arg)
    if frozen:
        return [executable, *args]
    return [executable, "-m", module, *args] if module else [executable, argv[0], *args]


def relaunch() -> None:
    """Start this app again in a new process (Settings ▸ Language ▸ Restart now); this one quits."""
    import subprocess

    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    module = spec.name if spec is not None and spec.name != "__main__" else None
    command = relaunch_command(sys.argv, sys.executable, frozen=bool(getattr(sys, "frozen", False)), module=module)
    subprocess.Popen(command, start_new_session=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:  # answered before any other import (start-up time, issue 15)
        from core.version import __version__

        sys.stdout.write(f"dsh-memory {__version__}\n")
        return 0
    if _wants_window(args):
        from gui.app import run  # Qt is imported only here

        return run(args)
    from core.cli.main import command_word
    from core.cli.main import main as cli_main

    code = cli_main(args)
    if argv is None and command_word(args) in _READ_ONLY_ONE_SHOT:
        # The process ends next: its last garbage collection (every object the imports made) would
        # be ~4 ms of a ~50 ms search (issue 24). A search or recall leaves nothing whose finalizer
        # matters (its index session commits and closes explicitly); the OS frees the memory.
        import gc

        gc.freeze()
    return code


if __name__ == "__main__":
    raise SystemExit(main())
