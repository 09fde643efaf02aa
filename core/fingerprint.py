"""One change-detection rule for everything that caches what it read from the memory root.

The store's parse cache, its persisted workspace summaries and the search index all decide "has
this changed since I read it?" from file stats, the same way:

- a **fingerprint** is a digest of the stat (mode, size, inode, mtime, ctime) of every ``*.md`` and
  ``scope.json`` in a scope folder (or of one file, for ``GLOBAL.md``);
- a file whose mtime *or ctime* falls within :data:`RACY_WINDOW_NS` of the moment it is looked at is
  **racily clean** (as git calls it): a second write in the same timestamp tick would leave its stat
  unchanged, so such a file is never trusted from a cache and is read again.

ctime matters: a program can set mtime back (``touch -r``, ``rsync -t``, ``utime``), never ctime.
The window is 100 ms, far above the timestamp granularity of ext4, btrfs, XFS, APFS and NTFS. Known
limit: FAT/exFAT keep 2 s mtimes; a root on such a stick can have a same-tick rewrite go unseen by
a cache until the next change.
``content_hash`` is the one content digest (record and scope revisions, journal checksums of files).
"""

from __future__ import annotations

import os
from stat import S_ISDIR

from core.layout import RECORD_SUFFIX, SCOPE_FILE

RACY_WINDOW_NS = 100_000_000


def content_hash(data: bytes) -> str:
    """The revision of some bytes: 16 hex digits of BLAKE2b."""
    import hashlib  # (in the functions: a one-shot CLI search over an up-to-date index hashes nothing)

    return hashlib.blake2b(data, digest_size=8).hexdigest()


def is_racy(st: os.stat_result, now_ns: int) -> bool:
    """Touched too recently to be trusted from a cache (see the module docstring)."""
    return max(st.st_mtime_ns, st.st_ctime_ns) > now_ns - RACY_WINDOW_NS


def scope_fingerprint(scope_dir: str | os.PathLike[str], now_ns: int) -> str | None:
    """Digest of the stat of every ``*.md`` and ``scope.json`` in ``scope_dir``.

    None when the scope can't be trusted from a cache: not a real directory (a symlinked scope),
    unlistable, or holding a file touched within the racy window.
    """
    try:
        st_dir = os.lstat(scope_dir)
    except OSError:
        return None
    if not S_ISDIR(st_dir.st_mode):
        return None
    names: list[str] = []
    nums: list[int] = []
    cutoff = now_ns - RACY_WINDOW_NS  # is_racy, inlined: this loop runs for every file of the root
    try:
        with os.scandir(scope_dir) as it:
            for de in it:
                name = de.name
                if not (name.endswith(RECORD_SUFFIX) or name == SCOPE_FILE):
                    continue
                st = de.stat(follow_symlinks=False)
                mtime, ctime = st.st_mtime_ns, st.st_ctime_ns
                if mtime > cutoff or ctime > cutoff:
                    return None
                names.append(name)
                nums += (st.st_mode, st.st_size, st.st_ino, mtime, ctime)
    except OSError:  # vanished or unreadable while listing: let the real read decide
        return None
    # No sort (hot path: 10k files): the same directory lists in the same order, and if the file
    # system ever reorders it, the digest merely misses and the scope is read again.
    import hashlib

    h = hashlib.blake2b("/".join(names).encode("utf-8", "surrogateescape"), digest_size=16)
    h.update(repr(nums).encode("ascii"))
    return h.hexdigest()


def file_fingerprint(path: str | os.PathLike[str], now_ns: int) -> str | None:
    """The same for one file: "missing" when it does not exist, None when racy or unreadable."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "missing"
    except OSError:
        return None
    if is_racy(st, now_ns):
        return None
    return f"{st.st_mode}:{st.st_size}:{st.st_ino}:{st.st_mtime_ns}:{st.st_ctime_ns}"
