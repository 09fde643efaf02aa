"""Other memory stores on this machine, read-only: DSH workspace memory, cross-workspace notes, project memory
and Claude Code's auto memory; discovery, import through review, and workspace memory's Recycle Bin.

Nothing here writes a foreign store except :mod:`core.sources.workspace_memory_bin`, and only on an
explicit user action (restore, purge, archive). A file that cannot be parsed is reported as a
:class:`~core.sources.models.SourceProblem`, never rewritten.
"""
