"""Background work steps aside while the user types (issue 15: keystrokes <= 30 ms at 100k).

A worker thread doing pure-Python work (the search index loading 1,000 scopes at start-up) holds
the interpreter lock whenever the window's thread does not: CPython hands the lock back and forth
every 5 ms, so a keystroke that needs 20 ms of the window's time took 40-60 ms while the worker
ran. ``sys.setswitchinterval`` would not help: it changes the slice, not the share, and it is
process-wide. Instead the filters and the search box note each keystroke
(:meth:`TypingPace.note_typing`), and workers call :meth:`TypingPace.step_aside` between two steps
of their loops: while the user typed in the last :data:`TYPING_WINDOW_S`, it sleeps :data:`PAUSE_S`
(which releases the lock), so the window gets the lock at once and keeps it for the keystroke.
Otherwise it costs one clock read. One :class:`TypingPace` per window, in its ``AppContext``.

Not an event filter on the whole application: that would call into Python for every event.
"""

from __future__ import annotations

import time

TYPING_WINDOW_S = 0.4  # a typist's keys come 100-300 ms apart: the pause covers a whole word
PAUSE_S = 0.004  # per worker step (a scope of the search index: ~2-4 ms of work)


class TypingPace:
    """When the user last typed in one of the window's text boxes."""

    window_ms = int(TYPING_WINDOW_S * 1000)  # (a deferred start looks again after this)

    def __init__(self) -> None:
        # Monotonic seconds; written on the GUI thread, read by workers (one float: no lock needed).
        self.last_typed = float("-inf")

    def note_typing(self, *_args: object) -> None:
        """On the GUI thread, from a text box's textChanged: the user is typing now."""
        self.last_typed = time.monotonic()

    def typing_recently(self) -> bool:
        return time.monotonic() - self.last_typed < TYPING_WINDOW_S

    def step_aside(self) -> None:
        """On a worker, between two steps: sleep a moment if the user is typing (see the module doc)."""
        if self.typing_recently():
            time.sleep(PAUSE_S)
