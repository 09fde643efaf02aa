"""Qt-free core of DSH Memory Manager: the memory store, search, session reading and consolidation."""

from core.version import __version__

__all__ = ["__version__"]
