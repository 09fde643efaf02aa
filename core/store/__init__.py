"""The MemoryStore: the only safe writer of DSH memory. See ``api.py`` for the contract.

Nothing is imported here: ``core.store.stamps`` must stay importable without pydantic or the store
(a one-shot search over an up-to-date index never opens the store). Import from the modules.
"""
