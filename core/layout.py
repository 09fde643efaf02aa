"""The names of the memory root's files and folders (PRODUCT.md §2), in one place.

A leaf module (no imports): the store, the search index, change detection and the one-shot CLI all
name the same files, and a fresh ``dsh-memory search`` must not pay for importing the store.
"""

import os  # (already loaded by the interpreter itself: costs no start-up)

GLOBAL_FILE = "GLOBAL.md"
INDEX_FILE = "MEMORY.md"  # a workspace's generated index
RECORD_SUFFIX = ".md"
SCOPE_FILE = "scope.json"  # a workspace folder's identity (cwd, created)
WORKSPACES_DIR = "workspaces"
ARCHIVED_DIR = "archived"
MANAGER_DIR = ".manager"  # this app's internals: locks, journal, history, caches
CACHE_DIR = "cache"  # under MANAGER_DIR: derived data (search index, summaries), rebuilt when gone
REVIEWS_DIR = "reviews"  # consolidation receipts (and move receipts)
SYNC_DIR = "sync"  # under MANAGER_DIR: this machine's sync repository, workspace map and last result
SEARCH_CACHE_DIR = f"{MANAGER_DIR}/{CACHE_DIR}"  # derived search data: rebuilt from the records, purged whole
USAGE_DIR = "usage"  # under MANAGER_DIR: the usage ledger (derived from session logs and MCP reads)
SETTINGS_FILE = "settings.yml"  # the app's settings (configuration, not memory)
DEBUG_DIR = "debug"  # consolidation's per-attempt model transcripts (debug/<review-id>/attempt-<n>.jsonl)
AGENT_PROPOSALS_DIR = f"{MANAGER_DIR}/agent-proposals"  # pending agent proposals (private state)
REVIEW_STATE_DIR = f"{MANAGER_DIR}/review-state"  # pending reviews with bodies: never in reviews/
STALE_MARKS_DIR = f"{MANAGER_DIR}/stale-reviewed"  # "reviewed" marks of the stale-memory queue
MCP_HANDLE_KEY_FILE = f"{MANAGER_DIR}/mcp-handle.key"  # the MCP server's HMAC key for observation handles


def cache_dir_of(root: str | os.PathLike[str]) -> str:
    """``<root>/.manager/cache``: where derived data of a root lives."""
    return os.path.join(root, MANAGER_DIR, CACHE_DIR)

# Under MANAGER_DIR (the store's own; nothing else writes there):
LOCKS_DIR = "locks"  # one lock file per scope
STAGING_DIR = "staging"  # one folder per transaction in progress (journal + staged files)
HISTORY_DIR = "history"  # <scope>/<id>.hist: every displaced version
ARCHIVE_STAMPS_DIR = "archive"  # <key>.json: when each archived workspace was archived
TRASH_DIR = "trash"  # a purged folder on its way out
QUARANTINE_DIR = "quarantine"  # damaged internal files moved aside, with a .why each
COMMIT_LOGS_DIR = "commit-log"  # <scope>.json: the recent commits (undo)
DEBUG_DIR = "debug"  # at the root: consolidation debug logs, <review-id>/attempt-N.jsonl (PRODUCT.md §2)
