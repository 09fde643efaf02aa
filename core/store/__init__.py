"""The MemoryStore: the only safe writer of DSH memory. See ``api.py`` for the contract."""

from core.store.api import MemoryStore

__all__ = ["MemoryStore"]
