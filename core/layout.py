"""The names of the memory root's files and folders (PRODUCT.md §2), in one place.

A leaf module (no imports): the store, the search index, change detection and the one-shot CLI all
name the same files, and a fresh ``dsh-memory search`` must not pay for importing the store.
"""

GLOBAL_FILE = "GLOBAL.md"
INDEX_FILE = "MEMORY.md"  # a workspace's generated index
RECORD_SUFFIX = ".md"
SCOPE_FILE = "scope.json"  # a workspace folder's identity (cwd, created)
WORKSPACES_DIR = "workspaces"
ARCHIVED_DIR = "archived"
MANAGER_DIR = ".manager"  # this app's internals: locks, journal, history, caches
SEARCH_CACHE_DIR = ".manager/cache"  # derived search data: rebuilt from the records, dropped whole by a purge
USAGE_DIR = "usage"  # under MANAGER_DIR: the usage ledger (derived from session logs and MCP reads)
